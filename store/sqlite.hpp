#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

#include "store/transaction.hpp"

namespace wb::store {

// Throws Error("what: <sqlite message> (code N)"). The one place sqlite3 codes are translated.
[[noreturn]] void throw_sqlite(sqlite3* db, int rc, const std::string& what);

class Statement;

// Move-only owner of a sqlite3 connection. Not thread-safe: one thread at a time.
class Database {
 public:
  // Opens (creating if needed) the file at `path`, in WAL mode with a busy timeout.
  explicit Database(const std::string& path);
  ~Database() noexcept;
  Database(Database&& o) noexcept : db_(o.db_) { o.db_ = nullptr; }
  Database& operator=(Database&&) = delete;
  Database(const Database&) = delete;

  void exec(const std::string& sql);
  Statement prepare(const std::string& sql);
  std::int64_t last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* handle() const { return db_; }
  // Closes now and reports an error, instead of the silent close in the destructor.
  void close();

 private:
  sqlite3* db_ = nullptr;
};

// Move-only owner of a prepared statement. Bind indices start at 1.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement() noexcept { sqlite3_finalize(stmt_); }
  Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;

  Statement& bind(int i, double v);
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, const std::string& v);
  Statement& bind_null(int i);
  Statement& bind(int i, const std::optional<double>& v) { return v ? bind(i, *v) : bind_null(i); }

  // Steps once: true while a row is available.
  bool step();
  // Steps to completion of a statement that returns no rows.
  void run();

  double column_double(int i) const { return sqlite3_column_double(stmt_, i); }
  std::int64_t column_int(int i) const { return sqlite3_column_int64(stmt_, i); }
  std::string column_text(int i) const;
  bool column_is_null(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  // The column's value, or nullopt where it is NULL.
  std::optional<double> optional_double(int i) const {
    return column_is_null(i) ? std::nullopt : std::optional<double>(column_double(i));
  }
  std::optional<std::int64_t> optional_int(int i) const {
    return column_is_null(i) ? std::nullopt : std::optional<std::int64_t>(column_int(i));
  }
  std::optional<std::string> optional_text(int i) const {
    return column_is_null(i) ? std::nullopt : std::optional<std::string>(column_text(i));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace wb::store
