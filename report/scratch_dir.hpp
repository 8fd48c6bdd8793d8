#pragma once
// A scratch directory for the files the report's drawing programs read and write (they get no
// stdin); removed with everything in it when the owner goes out of scope.
#include <filesystem>
#include <string>

namespace wb {

class ScratchDir {
 public:
  ScratchDir();  // Error when it cannot be created
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

  // Writes `text` to the file `name` inside; returns its path. Error when it cannot.
  std::filesystem::path write(const std::string& name, const std::string& text) const;
  // The text of the file `name` inside; empty when there is none.
  std::string read(const std::string& name) const;

 private:
  std::filesystem::path path_;
};

}  // namespace wb
