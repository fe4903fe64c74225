"""One module per sub-command, each with ``add_<name>`` (adds its arguments; its docstring's first line
is the help text) and ``cmd_<name>`` (runs it on the parsed arguments).  The table of commands is
:data:`dpposterior.cli.main.COMMANDS`."""
