#pragma once
// Response surfaces (map-surface) [003 Alg. 1]: their parameters and planned samples, and the
// searches that measure them. Each create/begin call is one transaction, so a crash never leaves
// a search that no surface point knows about.
// One part of store::Store (store/store.hpp), over the database handle the store owns.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sample.hpp"
#include "store/searches.hpp"

namespace wb::store {

class Database;

// A surface's status column: running (resumable), done, or stopped by a budget (also resumable).
enum class SurfaceState { kRunning, kDone, kBudget };
std::string_view to_string(SurfaceState state);
// The state a status column holds; Error for a text no version of workbench writes.
SurfaceState parse_surface_state(std::string_view text);

// One planned sample of a response surface, in the order it is measured.
struct SurfacePoint {
  int position = 0;
  Sample sample;
  std::optional<std::int64_t> search_id;  // set once its search has started
  std::optional<int> slot;                // the testbed slot that ran it
  std::optional<double> start_rate;       // the search's first load (a seed, or [peak] start_rate)
  bool seeded = false;                    // start_rate came from a nearby sample's peak
  double seed_elasticity = 0;             // the neighbours' elasticity its picker aimed with; 0: none
};

// A response surface [003 Alg. 1] as recorded: its parameters and its planned samples.
struct SurfaceRecord {
  std::int64_t id = 0;
  std::string testbed;
  std::string params_key;  // canonical text of the parameters; equal keys resume each other
  std::string params_json;
  SurfaceState status = SurfaceState::kRunning;
  std::vector<SurfacePoint> points;  // by position
};

class SurfaceStore {
 public:
  explicit SurfaceStore(Database& db, SearchStore& searches) : db_(db), searches_(searches) {}

  // The latest surface with these parameters, finished or not: the same request resumes an
  // unfinished one and reports a finished one without measuring again.
  std::optional<SurfaceRecord> find_surface(const std::string& testbed, const std::string& params_key);
  std::int64_t create_surface(const std::string& testbed, const std::string& params_key,
                              const std::string& params_json, const std::vector<Sample>& tour);
  std::optional<SurfaceRecord> surface(std::int64_t id);
  // Appends a sample to the surface's tour (sequential augmentation); returns its position, or
  // that of the sample when the surface already has it.
  int add_surface_point(std::int64_t surface_id, const Sample& sample);
  // Every surface of `testbed`, finished or not, oldest first.
  std::vector<std::int64_t> surface_ids(const std::string& testbed);
  // The finished surfaces of `testbed`, newest first.
  std::vector<std::int64_t> done_surfaces(const std::string& testbed);
  // Links point `position`, which has no search yet, to the newest search that found λ* with the
  // same request as `like` (testbed, sample, target, policy, seed, options): another surface's or a
  // `peak` run's. A changed design thus measures only samples nothing measured. The point keeps no
  // slot (it ran on none). Returns the search's id, or nullopt when there is none.
  std::optional<std::int64_t> reuse_found_search(std::int64_t surface_id, int position,
                                                 const SearchRecord& like);
  std::int64_t begin_surface_search(std::int64_t surface_id, int position, const SearchRecord& search,
                                    int slot, double start_rate, bool seeded, double seed_elasticity = 0);
  void finish_surface(std::int64_t id, SurfaceState status);

 private:
  Database& db_;
  SearchStore& searches_;
};

}  // namespace wb::store
