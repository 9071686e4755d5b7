// CowVector (engine/cow_vector.h) against std::vector: many copies sharing
// storage, each changed in its own way, must each read as its own vector.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "engine/cow_vector.h"

using tsocheck::CowVector;

namespace {

// Small leaves and blocks, so that a few hundred elements cross many of both.
using Small = CowVector<uint32_t, 4, 4>;

bool same(const Small& c, const std::vector<uint32_t>& v) {
  if (c.size() != v.size()) return false;
  for (size_t i = 0; i < v.size(); ++i)
    if (c[i] != v[i]) return false;
  size_t i = 0;
  for (uint32_t x : c)  // the iterator too
    if (x != v[i++]) return false;
  return i == v.size();
}

}  // namespace

TEST_CASE("copy-on-write vector: copies share storage and read as their own", "[cow]") {
  std::mt19937 rng(7);
  std::vector<Small> cows(1);
  std::vector<std::vector<uint32_t>> refs(1);
  for (int step = 0; step < 20000; ++step) {
    const size_t k = rng() % cows.size();
    Small& c = cows[k];
    std::vector<uint32_t>& v = refs[k];
    const uint32_t x = uint32_t(rng());
    switch (rng() % 9) {
      case 0:
      case 1:
        c.push_back(x);
        v.push_back(x);
        break;
      case 2:
        if (!v.empty()) {
          const size_t i = rng() % v.size();
          c.mut(i) = x;
          v[i] = x;
        }
        break;
      case 3: {
        const size_t n = v.empty() ? 0 : rng() % (v.size() + 1);
        c.resize(n);
        v.resize(n);
        break;
      }
      case 4: {
        const size_t p = rng() % (v.size() + 1);
        c.insert(p, x);
        v.insert(v.begin() + std::ptrdiff_t(p), x);
        break;
      }
      case 5:
        if (!v.empty()) {
          const size_t p = rng() % v.size();
          c.erase(p);
          v.erase(v.begin() + std::ptrdiff_t(p));
        }
        break;
      case 6: {
        const uint32_t m = 2 + rng() % 3;
        c.eraseIf([&](uint32_t y) { return y % m == 0; });
        v.erase(std::remove_if(v.begin(), v.end(), [&](uint32_t y) { return y % m == 0; }), v.end());
        break;
      }
      case 7:
        if (cows.size() < 40) {  // a copy that shares everything
          cows.push_back(c);
          refs.push_back(v);
        } else {  // or one goes away
          cows.erase(cows.begin() + std::ptrdiff_t(k));
          refs.erase(refs.begin() + std::ptrdiff_t(k));
        }
        break;
      default:
        if (rng() % 4 == 0) {
          c.detach();
        } else {  // one copy takes another's contents
          const size_t j = rng() % cows.size();
          cows[j] = cows[k];
          refs[j] = refs[k];
        }
        break;
    }
    if (step % 97 == 0 || step > 19900) {
      for (size_t i = 0; i < cows.size(); ++i) {
        CAPTURE(step, i);
        REQUIRE(same(cows[i], refs[i]));
      }
    }
  }
}
