// The registry of load pickers behind `workbench peak --policy`: one row per picker.
#include <fmt/format.h>

#include <array>
#include <functional>

#include "core/error.hpp"
#include "policies/load_picker.hpp"

namespace wb {

namespace {

struct PickerEntry {
  const char* name;
  const char* summary;
  std::function<std::unique_ptr<LoadPicker>(const PeakConfig&, double start_rate, bool seeded,
                                            double elasticity)>
      make;
};

const std::array<PickerEntry, 5>& pickers() {
  static const std::array<PickerEntry, 5> kTable{{
      {"binsearch", "double the load until it saturates, then bisect the bracket [003 Alg. 3]",
       [](const PeakConfig& p, double start, bool, double) { return make_binsearch_picker(p, start); }},
      {"linear", "raise the load by a fixed linear_step until it saturates, then bisect [003 §3.5]",
       [](const PeakConfig& p, double start, bool, double) { return make_linear_picker(p, start, false); }},
      {"strawman",
       "steps of strawman_step with fixed r = strawman_runlength_s and t = strawman_trials; λ* = last "
       "load before saturation, accurate only if the step is small [003 §3.1]",
       [](const PeakConfig& p, double start, bool, double) { return make_linear_picker(p, start, true); }},
      {"model",
       "fit R = 1/(a - bλ) to the latest load and the one nearest R_sat, jump to its λ at R_sat "
       "[003 Alg. 4]; may not converge",
       [](const PeakConfig& p, double start, bool, double) { return make_model_guided_picker(p, start); }},
      {"model-safe",
       "weighted fit of R = 1/(a - bλ) to all loads, kept inside the bracket and bisecting when the fit "
       "does not shrink it; always converges (seeded: with the neighbours' curve slope as a prior)",
       [](const PeakConfig& p, double start, bool seeded, double elasticity) {
         return make_model_safe_picker(p, start, seeded, elasticity);
       }},
  }};
  return kTable;
}

const PickerEntry* find_picker(const std::string& name) {
  for (const auto& e : pickers()) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> picker_names() {
  std::vector<std::string> names;
  for (const auto& e : pickers()) names.emplace_back(e.name);
  return names;
}

std::string picker_summary(const std::string& name) {
  const PickerEntry* e = find_picker(name);
  return e != nullptr ? e->summary : "";
}

std::unique_ptr<LoadPicker> make_picker(const std::string& name, const PeakConfig& peak, double start_rate,
                                        bool seeded, double elasticity) {
  if (const PickerEntry* e = find_picker(name)) return e->make(peak, start_rate, seeded, elasticity);
  std::string known;
  for (const auto& n : picker_names()) known += (known.empty() ? "" : ", ") + n;
  throw InputError(fmt::format("--policy: unknown policy '{}' (known: {})", name, known));
}

}  // namespace wb
