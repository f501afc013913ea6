//! The CUDA/HIP dialects: what the two runtime compilers are given differently (as cubecl-cpp's
//! `Dialect`). The emitter is shared: every kernel is written in the common subset against two
//! macros, `CP_WARP` (the warp/wavefront width) and `CP_SHFL_DOWN(v, off)` (the shuffle-down
//! intrinsic), which [`prelude`] defines per dialect before the common prelude. Launch bounds
//! (`__launch_bounds__(BLOCK)`) and everything else are spelled the same in both.

/// The C++ dialect: which runtime compiler the source is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// NVIDIA NVRTC.
    Cuda,
    /// AMD hipRTC.
    Hip,
}

impl Flavor {
    /// The dialect's name and compiler, as the prelude's first line names them.
    pub fn label(self) -> (&'static str, &'static str) {
        match self {
            Flavor::Cuda => ("CUDA", "NVRTC"),
            Flavor::Hip => ("HIP", "hipRTC"),
        }
    }

    /// The warp (wavefront) width `CP_WARP` stands for: 32 on CUDA; hipRTC's `warpSize` (64 on
    /// CDNA/GCN, 32 on RDNA).
    pub fn warp_size(self) -> &'static str {
        match self {
            Flavor::Cuda => "32",
            Flavor::Hip => "warpSize",
        }
    }

    /// The shuffle-down intrinsic `CP_SHFL_DOWN(v, off)` stands for (CUDA's takes a lane mask).
    pub fn shfl_down(self) -> &'static str {
        match self {
            Flavor::Cuda => "__shfl_down_sync(0xffffffffu, (v), (off))",
            Flavor::Hip => "__shfl_down((v), (off))",
        }
    }
}

/// The common prelude (types, integer/float helpers, float16/bfloat16 conversions).
pub const COMMON_PRELUDE: &str = include_str!("prelude.h");

/// The full prelude of a flavour: the CUDA/HIP differences, then [`COMMON_PRELUDE`].
pub fn prelude(flavor: Flavor) -> String {
    let (name, compiler) = flavor.label();
    format!(
        "// cupy-rs prelude: {name} flavour ({compiler})\n\
         #define CP_WARP {}\n\
         #define CP_SHFL_DOWN(v, off) {}\n\
         {COMMON_PRELUDE}",
        flavor.warp_size(),
        flavor.shfl_down()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preludes_are_the_dialect_lines_then_the_common_prelude() {
        assert_eq!(
            prelude(Flavor::Cuda),
            format!(
                "// cupy-rs prelude: CUDA flavour (NVRTC)\n\
                 #define CP_WARP 32\n\
                 #define CP_SHFL_DOWN(v, off) __shfl_down_sync(0xffffffffu, (v), (off))\n\
                 {COMMON_PRELUDE}"
            )
        );
        assert_eq!(
            prelude(Flavor::Hip),
            format!(
                "// cupy-rs prelude: HIP flavour (hipRTC)\n\
                 #define CP_WARP warpSize\n\
                 #define CP_SHFL_DOWN(v, off) __shfl_down((v), (off))\n\
                 {COMMON_PRELUDE}"
            )
        );
    }
}
