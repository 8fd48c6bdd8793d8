#pragma once
// What the libFuzzer harnesses count as a finding. A parser may accept its input or reject it with
// the error its contract names (wb::InputError for a config, a mix or a result; wb::Error for
// refserver's stats); any other exception, a broken invariant of what it accepted, a sanitizer
// report, a hang or an unbounded allocation is a bug. Harnesses catch the rejections they expect
// and leave the rest to run(), which aborts so that libFuzzer saves the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

namespace wb::fuzz {

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
  std::abort();
}

// Runs one input through `body`; an exception that escapes it is a finding.
template <class F>
int run(F&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "unexpected exception of a type not derived from std::exception\n");
    std::abort();
  }
  return 0;
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace wb::fuzz

// Like assert, but also in release builds and with the input saved by libFuzzer.
#define WB_FUZZ_CHECK(cond) ((cond) ? void(0) : ::wb::fuzz::fail(#cond, __FILE__, __LINE__))
