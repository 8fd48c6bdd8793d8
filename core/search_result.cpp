#include "core/search_result.hpp"

namespace wb {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kBelow: return "below";
    case Verdict::kAbove: return "above";
    case Verdict::kPeak: return "peak";
    case Verdict::kInvalid: return "invalid";
  }
  return "?";
}

const char* to_string(SearchStatus s) {
  switch (s) {
    case SearchStatus::kFound: return "found";
    case SearchStatus::kNotFound: return "not-found";
    case SearchStatus::kBudget: return "budget";
    case SearchStatus::kFailed: return "failed";
    case SearchStatus::kCliff: return "cliff";
    case SearchStatus::kBistable: return "bistable";
  }
  return "?";
}

bool has_peak(SearchStatus s) {
  return s == SearchStatus::kFound || s == SearchStatus::kCliff || s == SearchStatus::kBistable;
}

}  // namespace wb
