// access_widths: y = 2x + 1 at every access width a warp can use, and two
// kernels that waste most of what they fetch.
//
// Diagnosis a correct tool should reach (one launch each, 512 MiB per buffer,
// so each runs a few hundred microseconds at H200 bandwidth):
//   scale_u8, scale_u16, scale_f32, scale_f64, scale_f32x4
//       NOT uncoalesced.  One element per lane, consecutive lanes on
//       consecutive elements: a warp request covers 32 x (1, 2, 4, 8, 16)
//       contiguous bytes, i.e. 1, 2, 4, 8 or 16 sectors, and every fetched
//       byte is used: smsp__sass_average_data_bytes_per_sector_mem_global_op_ld
//       and _op_st should read 32 (of 32).  Sectors per request read 1, 2, 4,
//       8, 16: a fixed "4 is the floor" rule wrongly flags the 8- and 16-byte
//       kernels.  They are memory bound (DRAM throughput high); the narrow ones
//       may issue too many instructions to reach the DRAM roof.
//   sum4_f32x4_to_f32
//       NOT uncoalesced: 16-byte loads (16 sectors per request) and 4-byte
//       stores (4 sectors per request), 32 bytes used per sector on both.
//   strided_f32x4
//       uncoalesced_global_loads: lanes read 16-byte elements 64 B apart, so
//       each lane's 16 bytes sit alone in a 32-byte sector: 16 bytes used per
//       sector (32 sectors per request).  Stores are coalesced.
//   strided_u8
//       uncoalesced_global_loads: lanes read single bytes 32 B apart, 1 byte
//       used per sector (32 sectors per request).  Stores are coalesced.
//
// Every launch is checked bit for bit against a CPU reference at every
// output element, with the output poisoned (0xFF bytes) beforehand.  Those
// eight checked launches are the first eight kernel launches, one per kernel:
// `--profile` stops after them (ncu --launch-count 8); the default also times
// each (CUDA events, 3 warm-ups, median of 11).
#include "access_widths_kernels.cuh"
#include "kcommon.cuh"

#include <functional>

namespace {

struct Row {
  const char* name;
  size_t n;               // output elements (= threads)
  size_t loadBytes;       // bytes each thread loads
  size_t storeBytes;      // bytes each thread stores
  size_t loadStride;      // elements between consecutive lanes' loads
  std::function<cudaError_t()> launch;
  std::function<bool(const unsigned char* got)> check;
};

template <class T>
T loadView(const std::vector<float>& in, size_t i) {
  T v;
  std::memcpy(&v, reinterpret_cast<const unsigned char*>(in.data()) + i * sizeof(T), sizeof(T));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const bool profile = kParseProfileFlag(argc, argv);
  kPrintDevice();

  std::vector<float> in(kWidthBytes / sizeof(float));
  for (size_t w = 0; w < in.size(); ++w) in[w] = widthPattern(w);
  unsigned char *dIn = nullptr, *dOut = nullptr;
  KCHECK(cudaMalloc(&dIn, kWidthBytes));
  KCHECK(cudaMalloc(&dOut, kWidthBytes));
  KCHECK(cudaMemcpy(dIn, in.data(), kWidthBytes, cudaMemcpyHostToDevice));

  const auto inU8 = reinterpret_cast<const uint8_t*>(dIn);
  const auto inU16 = reinterpret_cast<const uint16_t*>(dIn);
  const auto inF32 = reinterpret_cast<const float*>(dIn);
  const auto inF64 = reinterpret_cast<const double*>(dIn);
  const auto inF4 = reinterpret_cast<const float4*>(dIn);
  const auto outU8 = reinterpret_cast<uint8_t*>(dOut);
  const auto outU16 = reinterpret_cast<uint16_t*>(dOut);
  const auto outF32 = reinterpret_cast<float*>(dOut);
  const auto outF64 = reinterpret_cast<double*>(dOut);
  const auto outF4 = reinterpret_cast<float4*>(dOut);

  const size_t nU8 = kWidthBytes, nU16 = kWidthBytes / 2, nF32 = kWidthBytes / 4, nF64 = kWidthBytes / 8,
               nF4 = kWidthBytes / 16;
  const size_t nStr16 = kWidthBytes / (16 * kStride16), nStr1 = kWidthBytes / kStride1;
  const unsigned B = kWidthBlock;

  std::vector<Row> rows = {
      {"scale_u8", nU8, 1, 1, 1,
       [&] { scale_u8<<<kBlocksFor(nU8, B), B>>>(inU8, outU8, nU8); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("scale_u8", reinterpret_cast<const uint8_t*>(g), nU8,
                           [&](size_t i) { return twoXPlusOne(loadView<uint8_t>(in, i)); });
       }},
      {"scale_u16", nU16, 2, 2, 1,
       [&] { scale_u16<<<kBlocksFor(nU16, B), B>>>(inU16, outU16, nU16); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("scale_u16", reinterpret_cast<const uint16_t*>(g), nU16,
                           [&](size_t i) { return twoXPlusOne(loadView<uint16_t>(in, i)); });
       }},
      {"scale_f32", nF32, 4, 4, 1,
       [&] { scale_f32<<<kBlocksFor(nF32, B), B>>>(inF32, outF32, nF32); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("scale_f32", reinterpret_cast<const float*>(g), nF32,
                           [&](size_t i) { return twoXPlusOne(in[i]); });
       }},
      {"scale_f64", nF64, 8, 8, 1,
       [&] { scale_f64<<<kBlocksFor(nF64, B), B>>>(inF64, outF64, nF64); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("scale_f64", reinterpret_cast<const double*>(g), nF64,
                           [&](size_t i) { return twoXPlusOne(loadView<double>(in, i)); });
       }},
      {"scale_f32x4", nF4, 16, 16, 1,
       [&] { scale_f32x4<<<kBlocksFor(nF4, B), B>>>(inF4, outF4, nF4); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("scale_f32x4", reinterpret_cast<const float4*>(g), nF4,
                           [&](size_t i) { return twoXPlusOne(loadView<float4>(in, i)); });
       }},
      {"sum4_f32x4_to_f32", nF4, 16, 4, 1,
       [&] { sum4_f32x4_to_f32<<<kBlocksFor(nF4, B), B>>>(inF4, outF32, nF4); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("sum4_f32x4_to_f32", reinterpret_cast<const float*>(g), nF4,
                           [&](size_t i) { return sum4TwoXPlusOne(loadView<float4>(in, i)); });
       }},
      {"strided_f32x4", nStr16, 16, 16, kStride16,
       [&] { strided_f32x4<<<kBlocksFor(nStr16, B), B>>>(inF4, outF4, nStr16); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("strided_f32x4", reinterpret_cast<const float4*>(g), nStr16,
                           [&](size_t i) { return twoXPlusOne(loadView<float4>(in, i * kStride16)); });
       }},
      {"strided_u8", nStr1, 1, 1, kStride1,
       [&] { strided_u8<<<kBlocksFor(nStr1, B), B>>>(inU8, outU8, nStr1); return cudaGetLastError(); },
       [&](const unsigned char* g) {
         return kCheckEach("strided_u8", reinterpret_cast<const uint8_t*>(g), nStr1,
                           [&](size_t i) { return twoXPlusOne(loadView<uint8_t>(in, i * kStride1)); });
       }},
  };

  // The checked launches: the only ones under --profile.
  std::vector<unsigned char> got(kWidthBytes);
  for (const Row& r : rows) {
    const size_t outBytes = r.n * r.storeBytes;
    KCHECK(kPoison(dOut, kWidthBytes));
    KCHECK(r.launch());
    KCHECK(cudaDeviceSynchronize());
    KCHECK(cudaMemcpy(got.data(), dOut, outBytes, cudaMemcpyDeviceToHost));
    if (!r.check(got.data())) return EXIT_FAILURE;
  }
  std::printf("all %zu launches match the CPU reference at every output element\n\n", rows.size());

  std::printf("%-18s %12s %7s %7s %11s %13s\n", "kernel", "threads", "load B", "store B", "load stride",
              "sectors/req ld");
  for (const Row& r : rows) {
    // A warp's 32 loads: contiguous -> 32 * width / 32 B sectors (at least 1);
    // strided -> one sector per lane.
    const size_t sectors = r.loadStride == 1 ? std::max<size_t>(1, 32 * r.loadBytes / 32) : 32;
    std::printf("%-18s %12zu %7zu %7zu %11zu %13zu\n", r.name, r.n, r.loadBytes, r.storeBytes, r.loadStride,
                sectors);
  }

  if (profile) {
    std::printf("\n--profile: the %zu checked launches above were the only launches\n", rows.size());
  } else {
    std::printf("\nmedian of 11 runs after 3 warm-ups; 'useful' counts the bytes the kernel uses\n");
    std::printf("%-18s %10s %14s\n", "kernel", "time ms", "useful GB/s");
    for (const Row& r : rows) {
      const float ms = kMedianMs(r.launch);
      const double useful = static_cast<double>(r.n) * static_cast<double>(r.loadBytes + r.storeBytes);
      std::printf("%-18s %10.3f %14.1f\n", r.name, ms, useful / (ms * 1e6));
    }
  }
  KCHECK(cudaFree(dIn));
  KCHECK(cudaFree(dOut));
  return EXIT_SUCCESS;
}
