#pragma once
// Transactions over the store's database, for callers that make several store calls one atomic
// step (Store::transaction()). No SQLite type appears here: sqlite3.h stays inside store/.
namespace wb::store {

class Database;

// RAII transaction: commits in commit(), rolls back in the destructor otherwise. Inside another
// transaction it is a savepoint, so store operations compose into one atomic step (the outermost
// one takes the write lock first: BEGIN IMMEDIATE).
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction() noexcept;
  void commit();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  Database& db_;
  bool nested_ = false;
  bool done_ = false;
};

}  // namespace wb::store
