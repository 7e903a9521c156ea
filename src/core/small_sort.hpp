// Internal: a stable insertion sort for the few (<= kMaxRank) dims of a tensor. std::stable_sort
// may allocate a temporary buffer; this runs on every op's hot path and must not.
#pragma once

namespace streamvision::detail {

template <class T, class Less>
void stable_sort_small(T* first, int n, Less less) {
  for (int i = 1; i < n; ++i) {
    T value = first[i];
    int j = i;
    while (j > 0 && less(value, first[j - 1])) {
      first[j] = first[j - 1];
      --j;
    }
    first[j] = value;
  }
}

}  // namespace streamvision::detail
