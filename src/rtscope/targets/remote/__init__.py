"""Linux boards reached over SSH: by address (ssh), through a labgrid environment's SSHDriver (labgrid),
or reserved through a lab's labgrid coordinator (labgrid_places). They import the shared core of
rtscope.targets, and labgrid's targets the ssh one they extend; no other family."""
