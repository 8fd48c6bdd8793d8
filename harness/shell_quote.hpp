#pragma once
// Turning argument vectors and command templates into POSIX sh command lines where every argument is
// exactly one literal word: the only way workbench builds a line for a shell, so substitutions can
// never inject a command, split or expand. Pure functions (no I/O, no global state), thread-safe.
#include <map>
#include <string>
#include <vector>

namespace wb {

// One argument as one sh word: in single quotes, every ' written as '\'' ; the empty string is ''.
// Words only of characters never special to sh ([A-Za-z0-9_@%+:,./-]) stay unquoted for readability,
// meaning the same word either way.
std::string shell_quote(const std::string& arg);

// argv as one sh command line: shell_quote of each argument, joined by single spaces.
std::string shell_join(const std::vector<std::string>& argv);

// Splits a command template (e.g. the [sut] start line `refserver --port {port} --threads
// {threads}`) into words, then substitutes {name} placeholders inside each word.
//
// Grammar (a deliberately small subset of sh, with no expansion of any kind):
//   - words are separated by unquoted spaces, tabs and newlines;
//   - '...'  quotes literally: no placeholder is substituted inside single quotes;
//   - "..."  quotes with placeholders substituted; inside it \" and \\ stand for " and \;
//   - \c     outside quotes stands for the character c (e.g. "\ " is a space within a word);
//   - {name} where name is [A-Za-z_][A-Za-z0-9_.-]* is replaced by values.at(name); the value is
//     inserted verbatim into the current word, never re-split or re-parsed, so a value with
//     spaces, quotes, $(...) or a newline stays part of that one word, and a word stays a word
//     (possibly empty) when its value is empty;
//   - any other { or } is an ordinary character; $, `, |, >, ; are ordinary characters too
//     (there are no pipes, redirections or variables: the result is an argv, not a script).
// An unknown placeholder name, an unterminated quote or a trailing backslash throws
// InputError naming the template. A template that yields no word is an InputError too.
std::vector<std::string> expand_command_template(const std::string& command_template,
                                                 const std::map<std::string, std::string>& values);

// Fills the placeholders of a file's text ([sut] files: a server's own config file): {name} as
// in a command template is replaced by values.at(name); {{name}} stands for the text {name}; any
// other brace is text, so `server { listen 80; }` and `${var}` need no escaping. Nothing is split
// or quoted.
// An unknown name throws InputError "line N: {name} has no value ...".
std::string expand_file_template(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace wb
