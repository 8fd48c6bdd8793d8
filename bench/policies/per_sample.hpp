// bench_policies' per-sample tables: model-safe's median cost against binsearch's on each sample of
// the tour, where the paper's model picker goes wrong, and (with seeding) the two pickers paired.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "harness/sim/truth.hpp"
#include "tour.hpp"

namespace wb {

// outcomes[variant][seed-1][tour position]
using Outcomes = std::vector<std::vector<std::vector<Outcome>>>;

// The variant of `policy` with that runlength and seeding and the model's seed; 0 when none is.
std::size_t variant_index(const std::vector<Variant>& variants, const std::string& policy,
                          const std::string& runlength, bool seeding);
bool has_policy(const std::vector<Variant>& variants, const std::string& policy);

// Prints, without and with seeding (only with it when `seeded_only`), each sample's median cost
// over `seeds` seeds for binsearch and model-safe, their ratio with a bootstrap interval, the paper's
// model where it ran, the oracle's cost, and how far equal policies' worst ratio would reach. With
// seeding and `swapped` filled (run_tour's swap), also the paired table. Nothing when either picker
// did not run.
void print_per_sample(const std::vector<Variant>& variants, const Outcomes& outcomes, const Outcomes& swapped,
                      const std::vector<Sample>& tour, const std::map<std::string, sim::Truth>& truths,
                      const std::vector<double>& oracle, int seeds, bool seeded_only);

}  // namespace wb
