#pragma once
// Internal to the Z-CART builder (models/zcart_split.cpp): a node's histogram bins, a split, and the
// split search [000 §3.3.1, eq. 1, 2], scanning numeric attributes in ascending order and categorical
// ones by mean target.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/zcart.hpp"

namespace wb::zcart_detail {

struct Bin {
  double n = 0, s = 0, s2 = 0;
};

struct Split {
  double gain = 0;
  int attr = -1;
  std::uint32_t bin = 0;                // numeric: bins <= bin go left
  std::uint32_t next = 0;               // numeric: the node's first non-empty bin above `bin`
  std::vector<std::uint8_t> left_cats;  // categorical
};

// The split search of one build over its histograms: attribute a's bins are
// h[offset[a], offset[a + 1]). Holds references: tab, opt and offset must outlive it, and offset
// must be filled before the first choose().
class SplitSearch {
 public:
  SplitSearch(const ObservationTable& tab, const ZCartOptions& opt, const std::vector<std::size_t>& offset)
      : tab_(tab), opt_(opt), a_(tab.attributes()), offset_(offset) {}

  // The split of a node of n rows with histogram h at `depth`; attr -1: none (a leaf).
  Split choose(const std::vector<Bin>& h, std::size_t n, int depth) const;

 private:
  double gain(const Bin& l, const Bin& r, const Bin& p) const;
  bool pure(const Bin& p) const;
  Split best_split(const std::vector<Bin>& h, const Bin& p) const;

  const ObservationTable& tab_;
  const ZCartOptions& opt_;
  std::size_t a_;
  const std::vector<std::size_t>& offset_;
};

}  // namespace wb::zcart_detail
