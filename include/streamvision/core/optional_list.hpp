// OptionalList<T>: an optional list argument (torchvision's `Optional[List[T]]`: a size, a fill,
// a sigma, a center) that call sites can write as a braced list.
//
// It is a std::optional<std::vector<T>> (publicly derived, nothing added), so functions taking it
// read it as one; it only adds the conversions a plain optional lacks:
//   resize(img, {224, 224})   resize(img, {256})   resize(img, std::nullopt, mode, 512)
//   pad(img, {2}, {0.5})      also a std::vector<T>, a std::optional<std::vector<T>> or {} (none)
#pragma once

#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

namespace streamvision {

template <class T>
class OptionalList : public std::optional<std::vector<T>> {
 public:
  using Base = std::optional<std::vector<T>>;

  OptionalList() noexcept = default;  // none
  OptionalList(std::nullopt_t) noexcept {}
  OptionalList(std::initializer_list<T> values) : Base(std::in_place, values) {}
  OptionalList(std::vector<T> values) noexcept : Base(std::move(values)) {}
  OptionalList(Base values) noexcept : Base(std::move(values)) {}
};

}  // namespace streamvision
