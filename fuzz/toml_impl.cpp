// toml++'s implementation, compiled once for the fuzz build (see WB_FUZZ in CMakeLists.txt).
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
