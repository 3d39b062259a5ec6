#!/usr/bin/env node
// A square wave from Node (docs/wave.md, "The generator").
//
// The pin's byte is written in place with fs.writeSync(fd, "1", 0), one
// toggle per tick of setInterval(half-period): the event loop's own way to
// run something periodically. Node's timers count whole milliseconds (a
// fraction is dropped, and less than 1 ms becomes 1 ms), so below a 2 ms
// period this model cannot keep up, and the observer measures it so.
"use strict";
const fs = require("fs");

const halfMs = Number(process.env.RTSCOPE_HALF_PERIOD_NS) / 1e6;
const wanted = 2 * Number(process.env.RTSCOPE_PERIODS);
const pin = fs.openSync(process.env.RTSCOPE_PIN, "r+");
let toggles = 0;

function finish() {
  clearInterval(ticker);
  console.log(`toggles ${toggles}`);
  process.exit(0);
}

fs.writeSync(pin, "0", 0);
const ticker = setInterval(() => {
  toggles += 1;
  fs.writeSync(pin, toggles % 2 === 1 ? "1" : "0", 0);
  if (toggles >= wanted) finish();
}, halfMs);
// SIGTERM stops the wave early; it is handled between ticks, so a toggle
// written is always counted.
process.on("SIGTERM", finish);
