// shell_quote / expand_command_template: every argument must reach a real /bin/sh program as one
// literal word, whatever characters it holds.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "core/error.hpp"
#include "harness/local_executor.hpp"
#include "harness/shell_quote.hpp"

namespace {

// Hostile values: command substitution, quote breaking, comments, newlines, globs, variables.
const std::vector<std::string> kNasty = {"$(touch pwned)",
                                         "'; rm -rf ~ #",
                                         "line one\nline two",
                                         "`touch pwned`",
                                         "\"double\"",
                                         "it's",
                                         "'",
                                         "''",
                                         "\\",
                                         "a b  c",
                                         "*",
                                         "~",
                                         "$HOME",
                                         "${IFS}",
                                         "-n",
                                         "a=b",
                                         "",
                                         " ",
                                         "\t",
                                         "{port}",
                                         "!x",
                                         "#comment",
                                         ";",
                                         "&&",
                                         "|",
                                         ">out",
                                         "<in",
                                         "\xc3\xa9t\xc3\xa9"};

// Splits NUL-terminated printf output back into words.
std::vector<std::string> split_nul(const std::string& s) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : s) {
    if (c == '\0') {
      words.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return words;
}

}  // namespace

TEST_CASE("shell_quote leaves plain words readable and quotes everything else") {
  CHECK(wb::shell_quote("refserver") == "refserver");
  CHECK(wb::shell_quote("--port") == "--port");
  CHECK(wb::shell_quote("/usr/bin/x.y") == "/usr/bin/x.y");
  CHECK(wb::shell_quote("") == "''");
  CHECK(wb::shell_quote("a b") == "'a b'");
  CHECK(wb::shell_quote("it's") == "'it'\\''s'");
  CHECK(wb::shell_quote("a=b") == "'a=b'");
  CHECK(wb::shell_join({"echo", "a b", "$x"}) == "echo 'a b' '$x'");
}

TEST_CASE("every quoted argument reaches a real sh program as one literal word") {
  const auto dir = std::filesystem::temp_directory_path() / "wb_shell_quote_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto local = wb::make_local_executor();
  std::vector<std::string> argv = {"printf", "%s\\0"};
  argv.insert(argv.end(), kNasty.begin(), kNasty.end());
  const std::string line = wb::shell_join(argv);
  const auto r = local->run({{"/bin/sh", "-c", line}, {}, dir.string(), std::chrono::seconds(10)});
  REQUIRE(r.exit_status == 0);
  CHECK(r.err.empty());
  CHECK(split_nul(r.out) == kNasty);
  CHECK(std::filesystem::is_empty(dir));  // nothing was touched, nothing redirected
  std::filesystem::remove_all(dir);
}

TEST_CASE("a command template splits into words and substitutes values verbatim") {
  const std::map<std::string, std::string> values = {
      {"port", "5000"}, {"threads", "8"}, {"evil", "$(touch pwned); x"}, {"empty", ""}, {"nl", "a\nb"}};
  using V = std::vector<std::string>;
  CHECK(wb::expand_command_template("refserver --port {port} --threads {threads}", values) ==
        V{"refserver", "--port", "5000", "--threads", "8"});
  CHECK(wb::expand_command_template("x --name=w{threads}x {evil}", values) ==
        V{"x", "--name=w8x", "$(touch pwned); x"});
  CHECK(wb::expand_command_template("x '{port} literal' \"t={threads} \\\"q\\\"\"", values) ==
        V{"x", "{port} literal", "t=8 \"q\""});
  CHECK(wb::expand_command_template("x {empty} '' {nl}", values) == V{"x", "", "", "a\nb"});
  CHECK(wb::expand_command_template("  x\ta\\ b {not a placeholder} {}  ", values) ==
        V{"x", "a b", "{not", "a", "placeholder}", "{}"});
  CHECK(wb::expand_command_template("x > y | z ; $HOME", values) == V{"x", ">", "y", "|", "z", ";", "$HOME"});
}

TEST_CASE("a bad command template is an input error naming the template") {
  const std::map<std::string, std::string> values = {{"port", "1"}};
  CHECK_THROWS_WITH(wb::expand_command_template("x {nope}", values),
                    Catch::Contains("{nope}") && Catch::Contains("x {nope}"));
  CHECK_THROWS_AS(wb::expand_command_template("x 'open", values), wb::InputError);
  CHECK_THROWS_AS(wb::expand_command_template("x \"open", values), wb::InputError);
  CHECK_THROWS_AS(wb::expand_command_template("x \\", values), wb::InputError);
  CHECK_THROWS_AS(wb::expand_command_template("   ", values), wb::InputError);
}

TEST_CASE("random byte strings survive quoting through a real sh (property test)") {
  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> len(0, 40), byte(1, 255), pick(0, 9);
  const std::string specials = "'\"\\$`!*?[]{}()<>|&;#~ \t\n=%";
  std::vector<std::string> words;
  for (int i = 0; i < 300; ++i) {
    std::string w;
    for (int n = len(rng); n > 0; --n) {
      // Mostly shell-special characters, so quoting is exercised hard.
      w += pick(rng) < 6 ? specials[static_cast<std::size_t>(byte(rng)) % specials.size()]
                         : static_cast<char>(byte(rng));
    }
    words.push_back(w);
  }
  std::vector<std::string> argv = {"printf", "%s\\0"};
  argv.insert(argv.end(), words.begin(), words.end());
  auto local = wb::make_local_executor();
  const auto r =
      local->run({{"/bin/sh", "-c", wb::shell_join(argv)}, {}, std::string("/"), std::chrono::seconds(10)});
  REQUIRE(r.exit_status == 0);
  CHECK(split_nul(r.out) == words);
}

TEST_CASE("random command templates either expand or fail with an input error (fuzz)") {
  std::mt19937 rng(4);
  const std::string alphabet = "ab {}'\"\\ \t\nxport}{port";
  std::uniform_int_distribution<int> len(0, 30);
  std::uniform_int_distribution<std::size_t> ch(0, alphabet.size() - 1);
  const std::map<std::string, std::string> values = {{"port", "1 2"}, {"a", "'"}};
  int expanded = 0, rejected = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string t;
    for (int n = len(rng); n > 0; --n) t += alphabet[ch(rng)];
    try {
      const auto words = wb::expand_command_template(t, values);
      CHECK_FALSE(words.empty());
      ++expanded;
    } catch (const wb::InputError&) {
      ++rejected;
    }
  }
  CHECK(expanded > 0);
  CHECK(rejected > 0);
}

TEST_CASE("file templates: placeholders filled, {{name}} and other braces kept as text") {
  const std::map<std::string, std::string> values = {{"port", "7412"}, {"workers", "2"}};
  CHECK(wb::expand_file_template("listen {port};", values) == "listen 7412;");
  // A server's own syntax passes through: blocks, empty braces, ${var} and {1,2} are not names.
  CHECK(wb::expand_file_template("http { server { } }\nmap ${x} {1,2}", values) ==
        "http { server { } }\nmap ${x} {1,2}");
  CHECK(wb::expand_file_template("{{port}} is {port}", values) == "{port} is 7412");
  // Values are inserted verbatim: nothing is quoted or split.
  CHECK(wb::expand_file_template("a{workers}b", {{"workers", "x y'\""}}) == "ax y'\"b");
  CHECK(wb::expand_file_template("", values).empty());
  CHECK_THROWS_WITH(wb::expand_file_template("a\nb\nlisten {prot};", values),
                    Catch::Contains("line 3: {prot} has no value"));
}
