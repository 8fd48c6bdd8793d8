#pragma once
// Test helper: rows of a query on a workbench store, each row's columns joined by '|' (NULL as
// "NULL"). Opens read-write: after a SIGKILL the WAL index may need recovery, which a read-only
// connection cannot do.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace wb::test {

inline std::vector<std::string> query(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  sqlite3_busy_timeout(h, 10000);
  sqlite3_stmt* st = nullptr;
  INFO(sql);
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(h);
    sqlite3_close(h);
    FAIL(msg);
  }
  std::vector<std::string> rows;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      if (i > 0) row += "|";
      const unsigned char* t = sqlite3_column_text(st, i);
      row += t != nullptr ? reinterpret_cast<const char*>(t) : "NULL";
    }
    rows.push_back(row);
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return rows;
}

}  // namespace wb::test
