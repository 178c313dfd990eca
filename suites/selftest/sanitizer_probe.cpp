// ci/sanitize's proof that its gate can fail: built with the same
// -fsanitize flags as the suites, it reads one element past a heap block
// when asked to. The gate must see AddressSanitizer's report and the
// non-zero exit; without the argument it does nothing wrong.
#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  std::vector<int> block(16, 1);
  volatile std::size_t index = 0;
  if (argc > 1 && std::strcmp(argv[1], "--overflow") == 0) index = block.size();
  const int* data = block.data();
  std::printf("read %d\n", data[index]);
  return 0;
}
