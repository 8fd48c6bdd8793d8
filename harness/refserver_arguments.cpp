#include "harness/refserver_arguments.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>

#include "core/error.hpp"
#include "harness/shell_quote.hpp"
#include "sut/server_options.hpp"

namespace wb {

namespace {

// Stands in for {refserver} so the words after it can be found; no path contains it.
const char* const kMarker = "\x01refserver";
constexpr std::size_t kMaxCombinations = 1000;

// Empty when refserver accepts `args`, else its complaint on one line.
std::string refserver_refuses(std::vector<std::string> args) {
  sut::ServerOptions options;
  sut::RawOptions raw;
  CLI::App app;
  sut::add_server_options(app, options, raw);
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
  std::string why;
  try {
    app.parse(args);
    sut::finish_options(options, raw);
    return "";
  } catch (const CLI::ParseError& e) {
    why = e.what();
  } catch (const Error& e) {
    why = e.what();
  }
  if (auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
  return why.empty() ? "rejected" : why;
}

}  // namespace

void check_refserver_arguments(ConfigSection& sut, const std::string& key,
                               const std::string& command_template, const Config& config,
                               const TestbedConfig& tb) {
  std::vector<const Factor*> varied;
  for (const auto& f : config.factors()) {
    if (command_template.find("{" + f.name + "}") != std::string::npos) varied.push_back(&f);
  }
  const Sample defaults = config.default_sample();
  // Returns false when the template does not run {refserver}.
  auto check = [&](const Sample& sample, const std::string& shown) {
    auto values = template_values(config, tb, sample, {{"refserver", kMarker}, {"wbload", "wbload"}});
    std::vector<std::string> words = expand_command_template(command_template, values);
    auto at = std::find(words.begin(), words.end(), kMarker);
    if (at == words.end()) return false;
    std::string why = refserver_refuses(std::vector<std::string>(at + 1, words.end()));
    if (!why.empty()) sut.fail(key, fmt::format("refserver refuses its arguments{}: {}", shown, why));
    return true;
  };
  if (varied.empty()) {
    check(defaults, "");
    return;
  }
  // One factor at a time first, so the error names the level that cannot run.
  for (const Factor* f : varied) {
    for (const auto& level : f->levels) {
      Sample s = defaults;
      s.set(f->name, level);
      if (!check(s, fmt::format(" for {}={}", f->name, level))) return;  // no {refserver} here
    }
  }
  std::size_t combinations = 1;
  for (const Factor* f : varied)
    combinations = std::min(combinations * f->levels.size(), kMaxCombinations + 1);
  if (combinations > kMaxCombinations) return;
  std::vector<std::size_t> at(varied.size(), 0);
  for (;;) {  // odometer over the levels
    Sample s = defaults;
    for (std::size_t i = 0; i < varied.size(); ++i) s.set(varied[i]->name, varied[i]->levels[at[i]]);
    check(s, " for " + s.key());
    std::size_t i = 0;
    while (i < at.size() && ++at[i] == varied[i]->levels.size()) at[i++] = 0;
    if (i == at.size()) break;
  }
}

}  // namespace wb
