// The expression language of configs ("2*{threads}", "min({disks}, 4)") on arbitrary text.
// Rejections are InputErrors; an accepted expression names well-formed factors and evaluates
// whenever every factor it names has a numeric value.
#include <cctype>

#include "core/error.hpp"
#include "core/expr.hpp"
#include "fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return wb::fuzz::run([&] {
    const std::string text = wb::fuzz::text_of(data, size);
    wb::Expr e;
    try {
      e = wb::Expr::parse(text);
    } catch (const wb::InputError&) {
      return;
    }
    WB_FUZZ_CHECK(e.text() == text);
    wb::Sample numeric;
    for (const auto& name : e.factors()) {
      WB_FUZZ_CHECK(!name.empty());
      for (char ch : name)
        WB_FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-');
      WB_FUZZ_CHECK(!numeric.has(name));  // listed once
      numeric.set(name, "2");
    }
    (void)e.eval(numeric);  // may be inf or NaN (1/0), but never throws
    if (e.is_constant()) (void)e.eval(wb::Sample());
    if (!e.factors().empty()) {
      wb::Sample missing;
      try {
        (void)e.eval(missing);
        WB_FUZZ_CHECK(false && "a missing factor evaluates");
      } catch (const wb::Error&) {
      }
    }
  });
}
