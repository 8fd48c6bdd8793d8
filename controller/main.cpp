// workbench: parses the command line and dispatches; all logic lives in the libraries.
#include "controller/cli.hpp"

int main(int argc, char** argv) { return wb::run_cli(argc, argv); }
