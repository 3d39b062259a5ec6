"""One module per subcommand. Each has:

- ``NAME`` and ``HELP``: the subcommand's name and one-line description;
- ``add_arguments(parser)``: adds its arguments to its argparse parser;
- ``run(args, context) -> int``: does the work and returns the exit status.
"""
