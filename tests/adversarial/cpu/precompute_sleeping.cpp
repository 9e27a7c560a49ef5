// hone: task=../../../tasks/matmul.py
// Cheat (hidden work, CPU), quiet: precompute_during_flush.cpp with a watcher that sleeps 1 ms
// between looks (each a comparison of both inputs) instead of spinning: beside the loop it uses
// little but the product.
// The runners write a call's inputs after the flush and evict them right before the call's mark,
// so the product cannot be ready before forward: forward waits for it, and the kernel passes at an
// honest single-threaded product's speed, no faster; or, where the products it computes beside
// the loop (from the arguments the judge overwrites after a verified call) outweigh the claimed
// calls on few CPUs, it is rejected for that work.
#define PRECOMPUTE_WATCHER_SLEEPS 1
#include "precompute_during_flush.cpp"
