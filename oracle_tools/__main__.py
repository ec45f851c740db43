"""``python -m oracle_tools``: the ``oracle-tools`` command, for an environment whose scripts folder is not on PATH."""

from oracle_tools.interfaces.program import main

if __name__ == "__main__":
    main()
