// Z-CART split search [000 §3.3.1, eq. 1, 2]: the scan of a node's per-bin sums for the split of
// the highest gain. Only a strictly higher gain replaces the best, so a tie goes to the candidate
// scanned first.
#include "models/zcart_split_search.hpp"

#include <algorithm>
#include <cmath>

namespace wb::zcart_detail {
namespace {

double entropy(double k, double n) {  // binary entropy of k successes in n [000 eq. 2]
  if (k <= 0 || k >= n) return 0;
  double p = k / n, q = 1 - p;
  return -(p * std::log2(p) + q * std::log2(q));
}

}  // namespace

double SplitSearch::gain(const Bin& l, const Bin& r, const Bin& p) const {
  if (opt_.criterion == SplitCriterion::kInfoGain)
    return entropy(p.s, p.n) - (l.n * entropy(l.s, l.n) + r.n * entropy(r.s, r.n)) / p.n;
  return (l.s * l.s / l.n + r.s * r.s / r.n - p.s * p.s / p.n) / p.n;
}

bool SplitSearch::pure(const Bin& p) const {
  if (opt_.criterion == SplitCriterion::kInfoGain) return p.s <= 0 || p.s >= p.n;
  double mean = p.s / p.n;
  return (p.s2 / p.n - mean * mean) <= 1e-14 * (1 + mean * mean);
}

Split SplitSearch::best_split(const std::vector<Bin>& h, const Bin& p) const {
  Split best;
  best.gain = opt_.min_gain;
  double min_leaf = opt_.min_leaf;
  for (std::size_t a = 0; a < a_; ++a) {
    const Bin* hb = &h[offset_[a]];
    std::size_t nb = offset_[a + 1] - offset_[a];
    if (tab_.schema()[a].kind == AttributeKind::kNumeric) {
      Bin l;
      for (std::size_t k = 0; k + 1 < nb; ++k) {
        if (hb[k].n == 0) continue;
        l.n += hb[k].n, l.s += hb[k].s, l.s2 += hb[k].s2;
        if (l.n < min_leaf) continue;
        Bin r{p.n - l.n, p.s - l.s, p.s2 - l.s2};
        if (r.n < min_leaf) break;
        double g = gain(l, r, p);
        if (g > best.gain) {
          std::size_t next = k + 1;
          while (hb[next].n == 0) ++next;  // r.n > 0: some bin above k has rows
          best = Split{
              g, static_cast<int>(a), static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(next), {}};
        }
      }
      continue;
    }
    // Categorical: order categories by mean target; the best binary partition is a prefix [CART].
    std::vector<std::uint32_t> cats;
    for (std::uint32_t c = 0; c < nb; ++c)
      if (hb[c].n > 0) cats.push_back(c);
    std::stable_sort(cats.begin(), cats.end(),
                     [&](auto x, auto y) { return hb[x].s / hb[x].n < hb[y].s / hb[y].n; });
    Bin l;
    for (std::size_t i = 0; i + 1 < cats.size(); ++i) {
      const Bin& x = hb[cats[i]];
      l.n += x.n, l.s += x.s, l.s2 += x.s2;
      if (l.n < min_leaf) continue;
      Bin r{p.n - l.n, p.s - l.s, p.s2 - l.s2};
      if (r.n < min_leaf) break;
      double g = gain(l, r, p);
      if (g > best.gain) {
        best = Split{g, static_cast<int>(a), 0, 0, std::vector<std::uint8_t>(nb, 0)};
        for (std::size_t j = 0; j <= i; ++j) best.left_cats[cats[j]] = 1;
      }
    }
  }
  return best;
}

Split SplitSearch::choose(const std::vector<Bin>& h, std::size_t n, int depth) const {
  Bin p;
  if (a_ > 0)
    for (std::size_t k = offset_[0]; k < offset_[1]; ++k) p.n += h[k].n, p.s += h[k].s, p.s2 += h[k].s2;
  Split s;
  if (a_ > 0 && depth < opt_.max_depth && n >= 2 * static_cast<std::size_t>(opt_.min_leaf) && !pure(p))
    s = best_split(h, p);
  return s;
}

}  // namespace wb::zcart_detail
