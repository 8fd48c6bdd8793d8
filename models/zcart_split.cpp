// Z-CART tree building: histogram split search over dictionary-encoded attributes [000 §3.3.1,
// eq. 1, 2]. One pass over a node's rows fills per-bin (count, sum, sum of squares) for every
// attribute at once; the larger child's histogram is the parent's minus the smaller child's, so a
// level costs O(rows · attributes) and the split scan O(bins). Rows are kept in a canonical order
// (by content) so every floating-point sum, and hence every split and leaf, is independent of the
// order in which the observations arrived.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "models/zcart.hpp"

namespace wb {
namespace {

struct Bin {
  double n = 0, s = 0, s2 = 0;
};

struct Split {
  double gain = 0;
  int attr = -1;
  std::uint32_t bin = 0;                // numeric: bins <= bin go left
  std::vector<std::uint8_t> left_cats;  // categorical
};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

std::uint64_t bits(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

double entropy(double k, double n) {  // binary entropy of k successes in n [000 eq. 2]
  if (k <= 0 || k >= n) return 0;
  double p = k / n, q = 1 - p;
  return -(p * std::log2(p) + q * std::log2(q));
}

}  // namespace

class ZCartBuilder {
 public:
  // whole_table: rows are all of the table's rows; the table is then physically put into canonical
  // order so that every node's rows are read in ascending memory order (no cache-miss per row).
  ZCartBuilder(ZCart& tree, std::vector<std::uint32_t>& rows, bool whole_table)
      : t_(tree), tab_(tree.table_), opt_(tree.options_), a_(tab_.attributes()), order_(rows) {
    canonical_order();
    if (whole_table) {
      t_.table_.permute(order_);
      std::iota(order_.begin(), order_.end(), 0u);
    }
    make_bins();
    if (opt_.criterion == SplitCriterion::kLogRatioVariance) {
      target_.assign(tab_.size(), 0.0);
      for (auto r : order_) target_[r] = std::log(tab_.ratio(r));
    }
    tmp_.resize(order_.size());
  }

  void build(int id, int depth) {
    std::vector<Bin> h(total_bins_);
    double ref = reference_ratio(0, order_.size());
    fill(0, order_.size(), ref, h);
    node(id, 0, order_.size(), depth, std::move(h));
  }

 private:
  // Sort rows by (hash of content, content): identical multisets give identical orders.
  void canonical_order() {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> keyed(order_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) {
      std::uint32_t r = order_[i];
      std::uint64_t h = bits(tab_.ratio(r));
      for (std::size_t a = 0; a < a_; ++a) h = mix(h, bits(tab_.value(r, a)));
      keyed[i] = {h, r};
    }
    std::sort(keyed.begin(), keyed.end(), [this](const auto& x, const auto& y) {
      if (x.first != y.first) return x.first < y.first;
      for (std::size_t a = 0; a < a_; ++a) {
        double vx = tab_.value(x.second, a), vy = tab_.value(y.second, a);
        if (vx != vy) return vx < vy;
      }
      return tab_.ratio(x.second) < tab_.ratio(y.second);
    });
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = keyed[i].second;
  }

  // Bins from the rows of this build: every distinct value of a numeric attribute, or equal-count
  // groups of them above max_bins; every category of a categorical one.
  void make_bins() {
    bin_of_code_.resize(a_);
    bin_upper_.resize(a_);
    offset_.resize(a_ + 1);
    std::vector<std::vector<std::uint32_t>> count(a_);
    for (std::size_t a = 0; a < a_; ++a) {
      const auto& at = tab_.schema()[a];
      count[a].assign(
          at.kind == AttributeKind::kCategorical ? at.categories.size() : tab_.dictionary(a).size(), 0);
    }
    for (auto r : order_) {
      const std::uint32_t* c = tab_.row_codes(r);
      for (std::size_t a = 0; a < a_; ++a) ++count[a][c[a]];
    }
    std::size_t total = 0;
    for (std::size_t a = 0; a < a_; ++a) {
      offset_[a] = total;
      auto& boc = bin_of_code_[a];
      boc.assign(count[a].size(), 0);
      if (tab_.schema()[a].kind == AttributeKind::kCategorical) {
        std::iota(boc.begin(), boc.end(), 0u);
        total += boc.size();
        continue;
      }
      const auto& dict = tab_.dictionary(a);
      std::vector<std::uint32_t> present;
      for (std::uint32_t c = 0; c < count[a].size(); ++c)
        if (count[a][c] > 0) present.push_back(c);
      std::sort(present.begin(), present.end(), [&](auto x, auto y) { return dict[x] < dict[y]; });
      auto per_bin =
          static_cast<std::uint64_t>(present.size() <= static_cast<std::size_t>(opt_.max_bins)
                                         ? 1
                                         : (order_.size() + static_cast<std::size_t>(opt_.max_bins) - 1) /
                                               static_cast<std::size_t>(opt_.max_bins));
      std::uint64_t in_bin = 0;
      auto& up = bin_upper_[a];
      up.clear();
      for (std::size_t i = 0; i < present.size(); ++i) {
        boc[present[i]] = static_cast<std::uint32_t>(up.size());
        in_bin += count[a][present[i]];
        if (in_bin >= per_bin || i + 1 == present.size()) {
          up.push_back(dict[present[i]]);
          in_bin = 0;
        }
      }
      total += std::max<std::size_t>(up.size(), 1);
    }
    offset_[a_] = total;
    total_bins_ = total;
  }

  double target(std::uint32_t r) const {
    return opt_.criterion == SplitCriterion::kRatioVariance ? tab_.ratio(r) : target_[r];
  }

  // [000 §3.3.1] the class of an observation at a node: "match" when the node's typical ratio (the
  // lower median, always an observed ratio) predicts it within tolerance, else "mismatch". At a
  // root where the expectation model holds for most observations that is "within tolerance of the
  // expectation model".
  double reference_ratio(std::size_t b, std::size_t e) const {
    if (opt_.criterion != SplitCriterion::kInfoGain || b == e) return 1.0;
    std::vector<double> x(e - b);
    for (std::size_t i = b; i < e; ++i) x[i - b] = tab_.ratio(order_[i]);
    auto mid = x.begin() + static_cast<std::ptrdiff_t>((x.size() - 1) / 2);
    std::nth_element(x.begin(), mid, x.end());
    return *mid;
  }

  void fill(std::size_t b, std::size_t e, double ref, std::vector<Bin>& h) const {
    bool info = opt_.criterion == SplitCriterion::kInfoGain;
    // Hoisted per-attribute pointers keep the inner loop free of reloads.
    std::vector<const std::uint32_t*> boc(a_);
    std::vector<Bin*> hb(a_);
    for (std::size_t a = 0; a < a_; ++a) {
      boc[a] = bin_of_code_[a].data();
      hb[a] = h.data() + offset_[a];
    }
    const std::uint32_t* const* bocp = boc.data();
    Bin* const* hbp = hb.data();
    for (std::size_t i = b; i < e; ++i) {
      std::uint32_t r = order_[i];
      double y =
          info ? (std::abs(ref - tab_.ratio(r)) <= opt_.tolerance * tab_.ratio(r) ? 1.0 : 0.0) : target(r);
      double y2 = y * y;
      const std::uint32_t* c = tab_.row_codes(r);
      for (std::size_t a = 0; a < a_; ++a) {
        Bin& x = hbp[a][bocp[a][c[a]]];
        x.n += 1;
        x.s += y;
        x.s2 += y2;
      }
    }
  }

  double gain(const Bin& l, const Bin& r, const Bin& p) const {
    if (opt_.criterion == SplitCriterion::kInfoGain)
      return entropy(p.s, p.n) - (l.n * entropy(l.s, l.n) + r.n * entropy(r.s, r.n)) / p.n;
    return (l.s * l.s / l.n + r.s * r.s / r.n - p.s * p.s / p.n) / p.n;
  }

  bool pure(const Bin& p) const {
    if (opt_.criterion == SplitCriterion::kInfoGain) return p.s <= 0 || p.s >= p.n;
    double mean = p.s / p.n;
    return (p.s2 / p.n - mean * mean) <= 1e-14 * (1 + mean * mean);
  }

  Split best_split(const std::vector<Bin>& h, const Bin& p) const {
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
          if (g > best.gain) best = Split{g, static_cast<int>(a), static_cast<std::uint32_t>(k), {}};
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
          best = Split{g, static_cast<int>(a), 0, std::vector<std::uint8_t>(nb, 0)};
          for (std::size_t j = 0; j <= i; ++j) best.left_cats[cats[j]] = 1;
        }
      }
    }
    return best;
  }

  void node(int id, std::size_t b, std::size_t e, int depth, std::vector<Bin> h) {
    std::size_t n = e - b;
    Bin p;
    if (a_ > 0)
      for (std::size_t k = offset_[0]; k < offset_[1]; ++k) p.n += h[k].n, p.s += h[k].s, p.s2 += h[k].s2;
    Split s;
    if (a_ > 0 && depth < opt_.max_depth && n >= 2 * static_cast<std::size_t>(opt_.min_leaf) && !pure(p))
      s = best_split(h, p);
    if (s.attr < 0) {
      t_.nodes_[id].rows.assign(order_.begin() + static_cast<std::ptrdiff_t>(b),
                                order_.begin() + static_cast<std::ptrdiff_t>(e));
      t_.finish_leaf(t_.nodes_[id]);
      return;
    }
    // Stable partition: left rows stay in place, right rows go through tmp_.
    std::size_t a = static_cast<std::size_t>(s.attr);
    const auto& boc = bin_of_code_[a];
    std::size_t w = b, nr = 0;
    for (std::size_t i = b; i < e; ++i) {
      std::uint32_t r = order_[i];
      std::uint32_t bin = boc[tab_.code(r, a)];
      bool left = s.left_cats.empty() ? bin <= s.bin : s.left_cats[bin] != 0;
      if (left)
        order_[w++] = r;
      else
        tmp_[nr++] = r;
    }
    std::copy(tmp_.begin(), tmp_.begin() + static_cast<std::ptrdiff_t>(nr),
              order_.begin() + static_cast<std::ptrdiff_t>(w));
    std::size_t mid = w;

    {
      ZCart::Node& nd = t_.nodes_[id];
      nd.attr = s.attr;
      nd.threshold = s.left_cats.empty() ? bin_upper_[a][s.bin] : 0;
      nd.left_cats = std::move(s.left_cats);
      nd.n = n;
      nd.rows.clear();
      nd.rows.shrink_to_fit();
      nd.sum_ratio = nd.sum_ratio_sq = nd.sum_log = 0;
      nd.histogram.clear();
      nd.fidelity_count = 0;
      nd.trained_n = n;
      nd.correction = 1;
    }
    int left = static_cast<int>(t_.nodes_.size());
    t_.nodes_.emplace_back();
    t_.nodes_.emplace_back();
    t_.nodes_[id].left = left;
    t_.nodes_[id].right = left + 1;

    std::vector<Bin> hl(total_bins_), hr;
    double refl = reference_ratio(b, mid), refr = reference_ratio(mid, e);
    if (opt_.criterion == SplitCriterion::kInfoGain) {
      hr.assign(total_bins_, Bin{});
      fill(b, mid, refl, hl);
      fill(mid, e, refr, hr);
    } else {
      bool left_small = mid - b <= e - mid;
      if (left_small)
        fill(b, mid, 0, hl);
      else
        fill(mid, e, 0, hl);
      for (std::size_t k = 0; k < total_bins_; ++k) {
        h[k].n -= hl[k].n, h[k].s -= hl[k].s, h[k].s2 -= hl[k].s2;
      }
      hr = std::move(h);
      if (!left_small) std::swap(hl, hr);
    }
    h.clear();
    h.shrink_to_fit();
    node(left, b, mid, depth + 1, std::move(hl));
    node(left + 1, mid, e, depth + 1, std::move(hr));
    summarize(id);
  }

  // An inner node's statistics are its children's sums (the leaves computed them from rows).
  void summarize(int id) {
    ZCart::Node& nd = t_.nodes_[id];
    const ZCart::Node& l = t_.nodes_[nd.left];
    const ZCart::Node& r = t_.nodes_[nd.right];
    nd.sum_ratio = l.sum_ratio + r.sum_ratio;
    nd.sum_ratio_sq = l.sum_ratio_sq + r.sum_ratio_sq;
    nd.sum_log = l.sum_log + r.sum_log;
    nd.fidelity_count = l.fidelity_count + r.fidelity_count;
    double n = static_cast<double>(nd.n);
    nd.correction =
        opt_.criterion == SplitCriterion::kLogRatioVariance ? std::exp(nd.sum_log / n) : nd.sum_ratio / n;
  }

  ZCart& t_;
  const ObservationTable& tab_;
  const ZCartOptions& opt_;
  std::size_t a_;
  std::vector<std::uint32_t>& order_;
  std::vector<std::uint32_t> tmp_;
  std::vector<double> target_;
  std::vector<std::vector<std::uint32_t>> bin_of_code_;
  std::vector<std::vector<double>> bin_upper_;
  std::vector<std::size_t> offset_;
  std::size_t total_bins_ = 0;
};

void ZCart::rebuild(int node_id, std::vector<std::uint32_t> rows, int depth) {
  nodes_[node_id].rows.clear();
  if (rows.empty()) {
    finish_leaf(nodes_[node_id]);
    return;
  }
  bool whole_table = node_id == 0 && rows.size() == table_.size();
  ZCartBuilder builder(*this, rows, whole_table);
  builder.build(node_id, depth);
}

}  // namespace wb
