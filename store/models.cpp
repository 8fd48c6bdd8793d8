#include "store/models.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "store/sqlite.hpp"
#include "store/store_internal.hpp"

namespace wb::store {

std::optional<ModelStore::TruthRow> ModelStore::find_truth(const std::string& testbed,
                                                           const std::string& sample,
                                                           const std::string& hash) {
  Statement s = db_.prepare(
      "SELECT peak_rate, region_low, region_high FROM sim_truths WHERE testbed = ?1 AND sample = ?2 AND "
      "model_hash = ?3");
  s.bind(1, testbed).bind(2, sample).bind(3, hash);
  if (!s.step()) return std::nullopt;
  return TruthRow{s.column_double(0), s.column_double(1), s.column_double(2)};
}

void ModelStore::put_truth(const std::string& testbed, const std::string& sample, const std::string& hash,
                           const TruthRow& t) {
  Statement s = db_.prepare(
      "INSERT OR REPLACE INTO sim_truths (testbed, sample, model_hash, peak_rate, region_low, region_high) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  s.bind(1, testbed)
      .bind(2, sample)
      .bind(3, hash)
      .bind(4, t.peak_rate)
      .bind(5, t.region_low)
      .bind(6, t.region_high);
  s.run();
}

// Expectations and calibrations [000 §2.1].
void ModelStore::put_expectation(const ExpectationRow& e) {
  Statement s = db_.prepare(
      "INSERT OR REPLACE INTO expectations (search_id, peak_rate, saturation_rate, bottleneck, "
      "calibrated_json, "
      "detail_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
  s.bind(1, e.search_id).bind(2, e.peak_rate).bind(3, e.saturation_rate).bind(4, e.bottleneck);
  s.bind(5, e.calibrated_json).bind(6, e.detail_json).run();
}

std::optional<ModelStore::ExpectationRow> ModelStore::expectation(std::int64_t search_id) {
  Statement s = db_.prepare(
      "SELECT peak_rate, saturation_rate, bottleneck, calibrated_json, detail_json FROM expectations "
      "WHERE search_id = ?1");
  s.bind(1, search_id);
  if (!s.step()) return std::nullopt;
  ExpectationRow e;
  e.search_id = search_id;
  e.peak_rate = s.optional_double(0);
  e.saturation_rate = s.optional_double(1);
  e.bottleneck = s.column_text(2);
  e.calibrated_json = s.column_text(3);
  e.detail_json = s.column_text(4);
  return e;
}

void ModelStore::add_calibration(const CalibrationRow& c) {
  nlohmann::json sample = c.sample.values();
  Statement s = db_.prepare(
      "INSERT INTO calibrations (testbed, center, sample, sample_json, demand_ms, visits, source) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  s.bind(1, c.testbed).bind(2, c.center).bind(3, c.sample.key()).bind(4, sample.dump()).bind(5, c.demand_ms);
  s.bind(6, c.visits).bind(7, c.source).run();
}

std::vector<ModelStore::CalibrationRow> ModelStore::calibrations(const std::string& testbed) {
  Statement s = db_.prepare(
      "SELECT center, sample_json, demand_ms, visits, source, created_at FROM calibrations WHERE testbed = "
      "?1 "
      "ORDER BY id");
  s.bind(1, testbed);
  std::vector<CalibrationRow> out;
  while (s.step()) {
    CalibrationRow c;
    c.testbed = testbed;
    c.center = s.column_text(0);
    c.sample = sample_from_json(s.column_text(1));
    c.demand_ms = s.column_double(2);
    c.visits = s.optional_double(3);
    c.source = s.column_text(4);
    c.created_at = s.column_text(5);
    out.push_back(std::move(c));
  }
  return out;
}

void ModelStore::put_zcart_tree(const std::string& testbed, const std::string& tree_json,
                                std::int64_t observations) {
  Statement s = db_.prepare(
      "INSERT OR REPLACE INTO zcart_trees (testbed, tree_json, observations) VALUES (?1, ?2, ?3)");
  s.bind(1, testbed).bind(2, tree_json).bind(3, observations).run();
}

std::optional<std::string> ModelStore::zcart_tree(const std::string& testbed) {
  Statement s = db_.prepare("SELECT tree_json FROM zcart_trees WHERE testbed = ?1");
  s.bind(1, testbed);
  if (!s.step()) return std::nullopt;
  return s.column_text(0);
}

void ModelStore::put_learned_model(const std::string& testbed, const LearnedModelRow& row) {
  Statement s =
      db_.prepare("INSERT OR REPLACE INTO learned_models (testbed, inputs, model_json) VALUES (?1, ?2, ?3)");
  s.bind(1, testbed).bind(2, row.inputs).bind(3, row.model_json).run();
}

std::optional<ModelStore::LearnedModelRow> ModelStore::learned_model(const std::string& testbed) {
  Statement s = db_.prepare("SELECT inputs, model_json FROM learned_models WHERE testbed = ?1");
  s.bind(1, testbed);
  if (!s.step()) return std::nullopt;
  return LearnedModelRow{s.column_text(0), s.column_text(1)};
}

std::optional<std::optional<double>> ModelStore::cached_expected_peak(const std::string& testbed,
                                                                      const std::string& sample,
                                                                      const std::string& inputs) {
  Statement s =
      db_.prepare("SELECT peak_rate FROM expected_peaks WHERE testbed = ?1 AND sample = ?2 AND inputs = ?3");
  s.bind(1, testbed).bind(2, sample).bind(3, inputs);
  if (!s.step()) return std::nullopt;
  return s.optional_double(0);
}

void ModelStore::put_expected_peak(const std::string& testbed, const std::string& sample,
                                   const std::string& inputs, std::optional<double> peak_rate) {
  Statement s = db_.prepare(
      "INSERT OR REPLACE INTO expected_peaks (testbed, sample, inputs, peak_rate) VALUES (?1, ?2, ?3, ?4)");
  s.bind(1, testbed).bind(2, sample).bind(3, inputs);
  if (peak_rate)
    s.bind(4, *peak_rate);
  else
    s.bind_null(4);
  s.run();
}

}  // namespace wb::store
