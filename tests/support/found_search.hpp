#pragma once
// A found search with its stored expectation, written straight into a store: the small stores of
// the Z-CART and probe tests, without running a search.
#include <cstdint>
#include <string>

#include "core/sample.hpp"
#include "core/search_result.hpp"
#include "store/store.hpp"

namespace wb::test {

// Stores a found search of `sample` on `testbed` with λ* `measured` and its expectation
// `expected`; returns the search id.
inline std::int64_t store_found_search(store::Store& store, const std::string& testbed, const Sample& sample,
                                       double measured, double expected) {
  store::SearchRecord rec;
  rec.testbed = testbed;
  rec.sample = sample;
  rec.policy = "binsearch";
  rec.options_json = "{}";
  const std::int64_t id = store.begin_search(rec);
  SearchResult r;
  r.status = SearchStatus::kFound;
  r.peak_rate = measured;
  store.finish_search(id, r);
  store::Store::ExpectationRow e;
  e.search_id = id;
  e.peak_rate = expected;
  store.put_expectation(e);
  return id;
}

}  // namespace wb::test
