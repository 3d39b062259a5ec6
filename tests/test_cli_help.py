"""Help a newcomer can act on: every --help ends with examples that parse, a mistyped command, option or
choice gets the names it is closest to (one line, exit 2), and export's help names every format."""

import shlex

import pytest

from rtscope import cli, exporters


def _examples() -> list[tuple[str | None, str]]:
    return [(command, line) for command, examples in cli.EXAMPLES.items() for line, _ in examples]


def test_every_command_and_rtscope_itself_have_two_or_three_examples():
    assert set(cli.EXAMPLES) == {None, *cli.COMMANDS}
    assert all(2 <= len(examples) <= 3 for examples in cli.EXAMPLES.values()), cli.EXAMPLES


@pytest.mark.parametrize(("command", "line"), _examples())
def test_each_example_parses_as_written(command, line):
    words = shlex.split(line)
    named = cli._command_in(words[1:])
    assert words[0] == "rtscope" and named in cli.COMMANDS and command in (None, named)
    if "--help" in words:
        with pytest.raises(SystemExit) as leaving:
            cli.build_parser(named).parse_args(words[1:])
        assert leaving.value.code == 0
    else:
        args = cli.build_parser(named).parse_args(words[1:])
        assert args.command.__name__ == f"rtscope.commands.{named}"


@pytest.mark.parametrize("command", [None, *cli.COMMANDS])
def test_help_ends_with_the_examples(rtscope, capsys, command):
    with pytest.raises(SystemExit) as leaving:
        rtscope(*([command] if command else []), "--help")
    assert leaving.value.code == 0
    shown = capsys.readouterr().out
    last = cli.EXAMPLES[command][-1]
    assert shown.endswith(f"  # {last[1]}\n  {last[0]}\n"), shown
    assert shown.index("examples:\n") > shown.index("--db")


def test_exports_help_names_every_format(rtscope, capsys):
    with pytest.raises(SystemExit):
        rtscope("export", "--help")
    description = capsys.readouterr().out.split("\n\n")[1]
    assert all(name in description for name in exporters.RUN_EXPORTERS), description


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rnu"], "unknown command 'rnu'; did you mean run? (see rtscope --help)"),
        (["frobnicate"], "unknown command 'frobnicate' (commands: list, run, campaign,"),
        (["runs", "--lable", "x"], "unknown option --lable; did you mean --label? (see rtscope runs --help)"),
        (["run", "--duraton=5"], "unknown option --duraton; did you mean --duration? (see rtscope run --help)"),
        # The mistyped option takes no value, so argparse reads its value as the command.
        (["--tagret", "local", "list"], "unknown option --tagret; did you mean --target? (see rtscope --help)"),
        (
            ["compare", "--by", "lable", "last"],
            "(choose from 'run', 'cell', 'label', 'load', 'target'); did you mean label?",
        ),
        (["kernels", "ad"], "invalid choice: 'ad' (choose from 'add', 'remove'); did you mean add?"),
        (["run", "--dur", "1", "--xyzzy"], "unknown option --xyzzy (see rtscope run --help)"),
    ],
)
def test_a_typo_gets_the_closest_names_in_one_line(rtscope, args, message):
    outcome = rtscope(*args)
    assert outcome.status == 2 and outcome.err.count("\n") == 1, outcome
    assert message in outcome.err, outcome.err
