#include "store/sqlite.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "core/error.hpp"

namespace wb::store {

void throw_sqlite(sqlite3* db, int rc, const std::string& what) {
  const char* msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw Error(fmt::format("{}: {} (sqlite code {})", what, msg, rc));
}

Database::Database(const std::string& path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(fmt::format("cannot open store {}: {}", path, msg));
  }
  sqlite3_busy_timeout(db_, 10000);
  // Switching a new file to WAL needs an exclusive lock, and SQLite reports SQLITE_BUSY at once
  // (no busy handler) when another process creates the same store at that moment: retry.
  for (int waited_ms = 0;; waited_ms += 10) {
    const int wal = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (wal == SQLITE_OK) break;
    if ((wal != SQLITE_BUSY && wal != SQLITE_LOCKED) || waited_ms >= 10000) {
      std::string msg = sqlite3_errmsg(db_);
      sqlite3_close(db_);
      db_ = nullptr;
      throw Error(fmt::format("cannot open store {}: {} (sqlite code {})", path, msg, wal));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // In WAL mode NORMAL survives a process crash (only power loss can drop the last commits).
  exec("PRAGMA synchronous=NORMAL");
  exec("PRAGMA foreign_keys=ON");
}

Database::~Database() noexcept { sqlite3_close_v2(db_); }

void Database::close() {
  if (db_ == nullptr) return;
  int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc, "closing the store");
  db_ = nullptr;
}

void Database::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err != nullptr ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw Error(fmt::format("store: {} (sqlite code {}) in: {}", msg, rc, sql.substr(0, 80)));
  }
}

Statement Database::prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc, "store: preparing " + sql.substr(0, 80));
  return Statement(db_, stmt);
}

Statement& Statement::bind(int i, double v) {
  int rc = sqlite3_bind_double(stmt_, i, v);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc, "store: bind");
  return *this;
}
Statement& Statement::bind(int i, std::int64_t v) {
  int rc = sqlite3_bind_int64(stmt_, i, v);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc, "store: bind");
  return *this;
}
Statement& Statement::bind(int i, const std::string& v) {
  int rc = sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc, "store: bind");
  return *this;
}
Statement& Statement::bind_null(int i) {
  int rc = sqlite3_bind_null(stmt_, i);
  if (rc != SQLITE_OK) throw_sqlite(db_, rc, "store: bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw_sqlite(db_, rc, "store: step");
}

void Statement::run() {
  while (step()) {
  }
  sqlite3_reset(stmt_);
}

std::string Statement::column_text(int i) const {
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  return t != nullptr ? reinterpret_cast<const char*>(t) : std::string();
}

Transaction::Transaction(Database& db) : db_(db), nested_(sqlite3_get_autocommit(db.handle()) == 0) {
  db_.exec(nested_ ? "SAVEPOINT wb_nested" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction() noexcept {
  if (!done_) {
    try {
      db_.exec(nested_ ? "ROLLBACK TO wb_nested; RELEASE wb_nested" : "ROLLBACK");
    } catch (...) {  // nothing more to do in a destructor
    }
  }
}

void Transaction::commit() {
  db_.exec(nested_ ? "RELEASE wb_nested" : "COMMIT");
  done_ = true;
}

}  // namespace wb::store
