#pragma once
// Coded variables for response surfaces [003 §4]: each numeric factor mapped onto [-1, 1], first on a
// log or 1/x scale if asked, so quadratic terms have comparable scale and can follow a saturating
// surface (docs/decisions.md#rsm-scales). Value types; safe to use from any thread.
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Dense>

namespace wb {

enum class CodingScale {
  kLinear,       // c = (2x - (max + min)) / (max - min)
  kLog,          // the same on log(x); every level must be > 0
  kInverse,      // the same on 1/x, oriented so that min still maps to -1; every level must be > 0
  kCategorical,  // a categorical factor's level index 0..L-1, uncoded: terms are its indicators
};

// "linear" | "log" | "inverse"; InputError otherwise. to_string gives the same names back (and
// "categorical", which is not a scale a user chooses).
CodingScale parse_coding_scale(std::string_view text);
const char* to_string(CodingScale scale);

// The coding of one numeric factor: min maps to -1, max to +1, monotone in between.
class Coding {
 public:
  // Coding over [min, max]. InputError if min >= max, or if scale is kLog or kInverse and min <= 0.
  Coding(double min, double max, CodingScale scale = CodingScale::kLinear);

  // Coding over the range of the declared levels. InputError if fewer than two distinct levels.
  static Coding from_levels(const std::vector<double>& levels, CodingScale scale = CodingScale::kLinear);
  // A categorical factor with these level names (at least two): a point holds the level's index,
  // and code() keeps it (InputError for a value that is not an index).
  static Coding categorical(std::vector<std::string> categories);

  // Natural value -> coded value. Values outside [min, max] code outside [-1, 1]
  // (extrapolation is the caller's decision). For kLog and kInverse, x <= 0 is an InputError.
  double code(double x) const;
  // Coded value -> natural value; exact inverse of code() up to rounding.
  double uncode(double c) const;

  double min() const { return min_; }
  double max() const { return max_; }
  CodingScale scale() const { return scale_; }
  bool categorical() const { return scale_ == CodingScale::kCategorical; }
  // The level names of a categorical coding; empty otherwise.
  const std::vector<std::string>& categories() const { return categories_; }

 private:
  double min_;
  double max_;
  CodingScale scale_;
  double lo_;  // min and max on the coding scale (log(min), log(max) for kLog; 1/min, 1/max for kInverse)
  double hi_;
  std::vector<std::string> categories_;
};

// Applies codings[j] to column j of `points` (one row per point). InputError if the number of
// columns differs from the number of codings.
Eigen::MatrixXd code_points(const Eigen::MatrixXd& points, const std::vector<Coding>& codings);
Eigen::MatrixXd uncode_points(const Eigen::MatrixXd& coded, const std::vector<Coding>& codings);

}  // namespace wb
