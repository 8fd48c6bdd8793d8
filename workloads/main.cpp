// wbload: see workloads/cli.hpp and `wbload --help`.
#include "workloads/cli.hpp"

int main(int argc, char** argv) { return wb::wbload_main(argc, argv); }
