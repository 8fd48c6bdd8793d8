// Z-CART tree building: a histogram split search over dictionary-encoded attributes [000 §3.3.1, eq. 1,
// 2], summed in a canonical row order so every split is independent of arrival order
// (docs/decisions.md#zcart-bins). The split scan is in models/zcart_split_search.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "models/zcart.hpp"
#include "models/zcart_split_search.hpp"

namespace wb {
namespace {

using zcart_detail::Bin;
using zcart_detail::Split;
using zcart_detail::SplitSearch;

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

double from_bits(std::uint64_t u) {
  double v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

// Node rows are gathered through order_ (ascending but sparse below the root): prefetching the row a
// few iterations ahead hides most of the miss latency. A hint only; it changes no result.
constexpr std::size_t kAhead = 16;
inline void prefetch(const void* p) { __builtin_prefetch(p, 0, 1); }

}  // namespace

class ZCartBuilder {
 public:
  // whole_table: the table is put into canonical order so nodes read their rows in ascending memory
  // order. Otherwise (a leaf retrained by add()) the builder uses local positions 0..n-1 of the rows in
  // canonical order, and ids_ maps them back to table rows.
  ZCartBuilder(ZCart& tree, std::vector<std::uint32_t>& rows, bool whole_table)
      : t_(tree),
        tab_(tree.table_),
        opt_(tree.options_),
        a_(tab_.attributes()),
        order_(rows),
        search_(tab_, opt_, offset_) {
    canonical_order();
    if (whole_table) {
      t_.table_.permute(order_);
      ratio_ = tab_.ratios();
    } else {
      ids_ = order_;
      local_ratio_.resize(ids_.size());
      for (std::size_t i = 0; i < ids_.size(); ++i) local_ratio_[i] = tab_.ratio(ids_[i]);
      ratio_ = local_ratio_.data();
    }
    std::iota(order_.begin(), order_.end(), 0u);
    make_bins();
    tmp_.resize(order_.size());
  }

  void build(int id, int depth) {
    std::vector<Bin> h(total_bins_);
    double ref = reference_ratio(0, order_.size());
    fill(0, order_.size(), ref, h);
    node(id, 0, order_.size(), depth, std::move(h));
  }

  // Whether node `nd` has the split build() would give the root of this build at `depth` (for a
  // leaf: that build() would not split).
  bool root_split_is(const ZCart::Node& nd, int depth) {
    std::vector<Bin> h(total_bins_);
    double ref = reference_ratio(0, order_.size());
    fill(0, order_.size(), ref, h);
    Split s = search_.choose(h, order_.size(), depth);
    if (s.attr != nd.attr) return false;
    if (s.attr < 0) return true;
    if (s.left_cats.empty()) return nd.left_cats.empty() && threshold(s) == nd.threshold;
    return s.left_cats == nd.left_cats;
  }

 private:
  std::uint32_t table_row(std::uint32_t local) const { return ids_.empty() ? local : ids_[local]; }

  // A numeric split's threshold: midway between the largest value that goes left and the smallest
  // that goes right, as rpart and scikit-learn place it, so a value between two observed levels
  // goes to the nearer one's side (docs/decisions.md#zcart).
  double threshold(const Split& s) const {
    const auto a = static_cast<std::size_t>(s.attr);
    return 0.5 * (bin_upper_[a][s.bin] + bin_lower_[a][s.next]);
  }

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

  // Bins from the rows of this build (every distinct numeric value, or equal-count groups above
  // max_bins; every category), each row's stored once, row-major in the narrowest unsigned type, so a
  // histogram fill reads one small record per row (docs/decisions.md#zcart-bins).
  void make_bins() {
    std::vector<std::vector<std::uint32_t>> bin_of_code(a_);
    bin_upper_.resize(a_);
    bin_lower_.resize(a_);
    offset_.resize(a_ + 1);
    std::vector<std::vector<std::uint32_t>> count(a_);
    for (std::size_t a = 0; a < a_; ++a) {
      const auto& at = tab_.schema()[a];
      count[a].assign(
          at.kind == AttributeKind::kCategorical ? at.categories.size() : tab_.dictionary(a).size(), 0);
    }
    for (auto l : order_) {
      const std::uint32_t* c = tab_.row_codes(table_row(l));
      for (std::size_t a = 0; a < a_; ++a) ++count[a][c[a]];
    }
    std::size_t total = 0, widest = 1;
    for (std::size_t a = 0; a < a_; ++a) {
      offset_[a] = total;
      auto& boc = bin_of_code[a];
      boc.assign(count[a].size(), 0);
      if (tab_.schema()[a].kind == AttributeKind::kCategorical) {
        std::iota(boc.begin(), boc.end(), 0u);
        total += boc.size();
        widest = std::max(widest, boc.size());
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
      auto& low = bin_lower_[a];
      up.clear();
      low.clear();
      for (std::size_t i = 0; i < present.size(); ++i) {
        boc[present[i]] = static_cast<std::uint32_t>(up.size());
        if (low.size() == up.size()) low.push_back(dict[present[i]]);
        in_bin += count[a][present[i]];
        if (in_bin >= per_bin || i + 1 == present.size()) {
          up.push_back(dict[present[i]]);
          in_bin = 0;
        }
      }
      total += std::max<std::size_t>(up.size(), 1);
      widest = std::max(widest, up.size());
    }
    offset_[a_] = total;
    total_bins_ = total;
    count.clear();
    width_ = widest <= 256 ? 1 : widest <= 65536 ? 2 : 4;
    switch (width_) {
      case 1: store_bins<std::uint8_t>(bin_of_code); break;
      case 2: store_bins<std::uint16_t>(bin_of_code); break;
      default: store_bins<std::uint32_t>(bin_of_code); break;
    }
  }

  template <typename T>
  void store_bins(const std::vector<std::vector<std::uint32_t>>& bin_of_code) {
    const std::size_t n = order_.size();
    std::vector<T>& out = bin_store<T>();
    out.assign(n * a_, 0);
    for (std::size_t l = 0; l < n; ++l) {
      const std::uint32_t* c = tab_.row_codes(table_row(static_cast<std::uint32_t>(l)));
      for (std::size_t a = 0; a < a_; ++a) out[l * a_ + a] = static_cast<T>(bin_of_code[a][c[a]]);
    }
  }

  template <typename T>
  std::vector<T>& bin_store() {
    if constexpr (sizeof(T) == 1)
      return bins8_;
    else if constexpr (sizeof(T) == 2)
      return bins16_;
    else
      return bins32_;
  }

  // [000 §3.3.1] An observation's class at a node: "match" when the node's lower-median ratio predicts it
  // within tolerance. The median is selected from bit-pattern buckets without copying a large node's
  // ratios. known: the rows per root bucket, when the partition that made this node counted them.
  double reference_ratio(std::size_t b, std::size_t e, const std::uint32_t* known = nullptr) {
    if (opt_.criterion != SplitCriterion::kInfoGain || b == e) return 1.0;
    std::size_t k = (e - b - 1) / 2;  // rank of the lower median among the rows in [lo, hi]
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
    if (e - b > kSmall) {
      int shift = 0;
      if (known != nullptr) {
        lo = root_lo_, hi = root_hi_, shift = root_shift_;
      } else {
        for (std::size_t i = b; i < e; ++i) {
          if (i + kAhead < e) prefetch(ratio_ + order_[i + kAhead]);
          std::uint64_t u = bits(ratio_[order_[i]]);
          lo = std::min(lo, u);
          hi = std::max(hi, u);
        }
        while (((hi - lo) >> shift) >= kBuckets) ++shift;
        if (b == 0 && e == order_.size()) {  // the root: its range buckets every row of the build
          root_lo_ = lo, root_hi_ = hi, root_shift_ = shift;
          root_buckets_ = static_cast<std::size_t>((hi - lo) >> shift) + 1;
        }
      }
      while (lo != hi) {
        const std::uint32_t* counts = known;
        if (counts == nullptr) {
          counts_.assign(static_cast<std::size_t>((hi - lo) >> shift) + 1, 0);
          for (std::size_t i = b; i < e; ++i) {
            if (i + kAhead < e) prefetch(ratio_ + order_[i + kAhead]);
            std::uint64_t u = bits(ratio_[order_[i]]);
            if (u >= lo && u <= hi) ++counts_[static_cast<std::size_t>((u - lo) >> shift)];
          }
          counts = counts_.data();
        }
        known = nullptr;
        std::size_t j = 0;
        while (k >= counts[j]) k -= counts[j++];
        std::uint64_t nlo = lo + (static_cast<std::uint64_t>(j) << shift);
        hi = std::min(hi, nlo + ((std::uint64_t{1} << shift) - 1));
        lo = nlo;
        if (counts[j] <= kSmall) break;
        shift = 0;
        while (((hi - lo) >> shift) >= kBuckets) ++shift;
      }
      if (lo == hi) return from_bits(lo);
    } else {
      hi = ~std::uint64_t{0};
      lo = 0;
    }
    scratch_.clear();
    for (std::size_t i = b; i < e; ++i) {
      if (i + kAhead < e) prefetch(ratio_ + order_[i + kAhead]);
      double x = ratio_[order_[i]];
      std::uint64_t u = bits(x);
      if (u >= lo && u <= hi) scratch_.push_back(x);
    }
    auto mid = scratch_.begin() + static_cast<std::ptrdiff_t>(k);
    std::nth_element(scratch_.begin(), mid, scratch_.end());
    return *mid;
  }

  void fill(std::size_t b, std::size_t e, double ref, std::vector<Bin>& h) {
    switch (width_) {
      case 1: fill_as<std::uint8_t>(b, e, ref, h); break;
      case 2: fill_as<std::uint16_t>(b, e, ref, h); break;
      default: fill_as<std::uint32_t>(b, e, ref, h); break;
    }
  }

  // Per-bin sums over the rows [b, e) of order_, each bin in row order (the rounding of the one-pass
  // fill). Information gain's bins are integer counts (rows low, matches high 32 bits), exact in any
  // order, converted to Bin once per node.
  template <typename T>
  void fill_as(std::size_t b, std::size_t e, double ref, std::vector<Bin>& h) {
    const T* bins = bin_store<T>().data();
    const std::size_t* off = offset_.data();
    const std::size_t na = a_;
    if (opt_.criterion == SplitCriterion::kInfoGain) {
      packed_.assign(total_bins_, 0);
      std::uint64_t* hp = packed_.data();
      const double tol = opt_.tolerance;
      for (std::size_t i = b; i < e; ++i) {
        if (i + kAhead < e) {
          std::uint32_t f = order_[i + kAhead];
          prefetch(bins + static_cast<std::size_t>(f) * na);
          prefetch(ratio_ + f);
        }
        std::uint32_t l = order_[i];
        double x = ratio_[l];
        std::uint64_t inc = std::abs(ref - x) <= tol * x ? (std::uint64_t{1} << 32) + 1 : 1;
        const T* c = bins + static_cast<std::size_t>(l) * na;
        for (std::size_t a = 0; a < na; ++a) hp[off[a] + c[a]] += inc;
      }
      for (std::size_t k = 0; k < total_bins_; ++k) {
        auto rows = static_cast<double>(hp[k] & 0xffffffffULL), hits = static_cast<double>(hp[k] >> 32);
        h[k].n += rows;
        h[k].s += hits;
        h[k].s2 += hits;
      }
      return;
    }
    const bool log_target = opt_.criterion == SplitCriterion::kLogRatioVariance;
    Bin* hb = h.data();
    for (std::size_t i = b; i < e; ++i) {
      if (i + kAhead < e) {
        std::uint32_t f = order_[i + kAhead];
        prefetch(bins + static_cast<std::size_t>(f) * na);
        prefetch(ratio_ + f);
      }
      std::uint32_t l = order_[i];
      double y = log_target ? std::log(ratio_[l]) : ratio_[l];
      double y2 = y * y;
      const T* c = bins + static_cast<std::size_t>(l) * na;
      for (std::size_t a = 0; a < na; ++a) {
        Bin& x = hb[off[a] + c[a]];
        x.n += 1;
        x.s += y;
        x.s2 += y2;
      }
    }
  }

  // Stable partition of order_[b, e): left rows stay in place, right rows go through tmp_.
  // Returns the first right position.
  template <typename T>
  // count: also count each side's rows per root bucket, for the children's reference_ratio.
  std::size_t partition_as(std::size_t b, std::size_t e, const Split& s, bool count) {
    const T* bins = bin_store<T>().data();
    const std::size_t a = static_cast<std::size_t>(s.attr);
    std::size_t w = b, nr = 0;
    if (count) {
      left_counts_.assign(root_buckets_, 0);
      right_counts_.assign(root_buckets_, 0);
    }
    for (std::size_t i = b; i < e; ++i) {
      if (i + kAhead < e) {
        std::uint32_t f = order_[i + kAhead];
        prefetch(bins + static_cast<std::size_t>(f) * a_ + a);
        if (count) prefetch(ratio_ + f);
      }
      std::uint32_t l = order_[i];
      std::uint32_t bin = bins[static_cast<std::size_t>(l) * a_ + a];
      bool left = s.left_cats.empty() ? bin <= s.bin : s.left_cats[bin] != 0;
      if (count) {
        auto bucket = static_cast<std::size_t>((bits(ratio_[l]) - root_lo_) >> root_shift_);
        ++(left ? left_counts_ : right_counts_)[bucket];
      }
      if (left)
        order_[w++] = l;
      else
        tmp_[nr++] = l;
    }
    std::copy(tmp_.begin(), tmp_.begin() + static_cast<std::ptrdiff_t>(nr),
              order_.begin() + static_cast<std::ptrdiff_t>(w));
    return w;
  }

  void node(int id, std::size_t b, std::size_t e, int depth, std::vector<Bin> h) {
    std::size_t n = e - b;
    Split s = search_.choose(h, n, depth);
    if (s.attr < 0) {
      auto& rows = t_.nodes_[id].rows;
      rows.resize(n);
      for (std::size_t i = 0; i < n; ++i) rows[i] = table_row(order_[b + i]);
      t_.finish_leaf(t_.nodes_[id]);
      return;
    }
    bool count = root_buckets_ > 0 && e - b > kSmall;
    std::size_t mid = width_ == 1   ? partition_as<std::uint8_t>(b, e, s, count)
                      : width_ == 2 ? partition_as<std::uint16_t>(b, e, s, count)
                                    : partition_as<std::uint32_t>(b, e, s, count);

    {
      ZCart::Node& nd = t_.nodes_[id];
      nd.attr = s.attr;
      nd.threshold = s.left_cats.empty() ? threshold(s) : 0;
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
    double refl = reference_ratio(b, mid, count ? left_counts_.data() : nullptr);
    double refr = reference_ratio(mid, e, count ? right_counts_.data() : nullptr);
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
  void summarize(int id) { t_.summarize(id); }

  ZCart& t_;
  const ObservationTable& tab_;
  const ZCartOptions& opt_;
  std::size_t a_;
  std::vector<std::uint32_t>& order_;  // local positions (= table rows for a whole-table build)
  std::vector<std::uint32_t> ids_;     // local position -> table row; empty for a whole-table build
  std::vector<double> local_ratio_;
  const double* ratio_ = nullptr;  // by local position
  std::vector<std::uint32_t> tmp_;
  // Row-major bins of every row, in the narrowest type that holds them (width_ bytes; one is used).
  std::vector<std::uint8_t> bins8_;
  std::vector<std::uint16_t> bins16_;
  std::vector<std::uint32_t> bins32_;
  std::size_t width_ = 1;
  std::vector<std::vector<double>> bin_upper_;  // the largest value in each numeric bin
  std::vector<std::vector<double>> bin_lower_;  // the smallest
  std::vector<std::size_t> offset_;
  std::size_t total_bins_ = 0;
  SplitSearch search_;  // reads offset_, filled by make_bins()
  std::vector<double> scratch_;
  std::vector<std::uint32_t> counts_;
  // Median search: nodes above kSmall rows bucket their ratios' bit patterns into at most kBuckets
  // buckets; the root's range (it holds every ratio of the build) is kept so that a partition can
  // count its children's rows per root bucket on the way.
  static constexpr std::size_t kSmall = 4096, kBuckets = 4096;
  std::uint64_t root_lo_ = 0, root_hi_ = 0;
  int root_shift_ = 0;
  std::size_t root_buckets_ = 0;  // 0: not set (a root of at most kSmall rows)
  std::vector<std::uint32_t> left_counts_, right_counts_;
  std::vector<std::uint64_t> packed_;
};

bool ZCart::split_holds(int id, std::vector<std::uint32_t> rows, int depth) {
  ZCartBuilder builder(*this, rows, false);
  return builder.root_split_is(nodes_[id], depth);
}

void ZCart::rebuild(int node_id, std::vector<std::uint32_t> rows, int depth) {
  nodes_[node_id].rows.clear();
  if (rows.empty()) {
    finish_leaf(nodes_[node_id]);
  } else {
    bool whole_table = node_id == 0 && rows.size() == table_.size();
    ZCartBuilder builder(*this, rows, whole_table);
    builder.build(node_id, depth);
  }
  index_nodes();
}

}  // namespace wb
