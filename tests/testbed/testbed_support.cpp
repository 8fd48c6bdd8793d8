#include "testbed_support.hpp"

#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace wb::test {

std::string query(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    throw std::runtime_error("cannot open " + db.string());
  }
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0) != nullptr) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

int count_processes(const std::string& needle) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == std::to_string(getpid())) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string cmd = ss.str();
    for (char& c : cmd) {
      if (c == '\0') c = ' ';
    }
    if (cmd.find(needle) != std::string::npos) ++n;
  }
  return n;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("wb_testbed_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::string shipped_config_copy(const std::string& name, const std::filesystem::path& dir, int port) {
  const std::string configs = std::string(WB_SOURCE_DIR) + "/configs";
  std::ifstream in(configs + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  // The [sut] port line (the only line that is exactly "port = N") and every {source} and
  // {config_dir}.
  text = std::regex_replace(text, std::regex("\nport = [0-9]+\n"), "\nport = " + std::to_string(port) + "\n");
  for (const auto& [placeholder, value] :
       {std::pair<std::string, std::string>{"{source}", WB_SOURCE_DIR}, {"{config_dir}", configs}}) {
    for (auto at = text.find(placeholder); at != std::string::npos;
         at = text.find(placeholder, at + value.size()))
      text.replace(at, placeholder.size(), value);
  }
  std::filesystem::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace wb::test
