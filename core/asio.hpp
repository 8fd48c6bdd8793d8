#pragma once
// The one place the project includes Boost.Asio. Boost 1.74's awaitable.hpp uses std::exchange
// without including <utility>; with g++ 12 in C++20 mode that fails unless <utility> comes first.
#include <utility>

#include <boost/asio.hpp>
