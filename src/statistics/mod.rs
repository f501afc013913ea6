//! Reductions and statistics, each declared once with `reductions!` in its NumPy family's file
//! (sums, nan, order statistics, averages, truth, counting):
//!
//! ```text
//! /// The sum (small integers accumulate in (u)int64, float16 in float32).
//! sum / sum_axis / sum_with => |t, opts, count| sums::sum_kernel(t, opts);
//! ```
//!
//! the doc, the names of the three forms, `empty "<message>"` for reductions an empty axis
//! refuses (NumPy's error), `takes "initial where"` for the keywords beyond `axis keepdims
//! dtype out ddof` it takes (applied by [`reduction::reduce`] to every reduction alike, as
//! kernel rewrites in `keywords.rs`), `check <fn>` for a check of the input before the kernel
//! ([`reduction::Check`]), and the kernel builder ([`reduction::Build`]). It makes the [`Reduction`] object
//! (`cupy::reductions::sum`), the functions `cupy::sum(&a)`, `cupy::sum_with(&a, Reduce {..})`,
//! the methods `a.sum()`, `a.sum_axis(0)`, `a.sum_with(..)`, the `fuse` methods (`Sym::sum`,
//! `Sym::sum_axis`, `Sym::sum_with`) and the registry row.
//!
//! [`Reduction`]: reduction::Reduction

/// Declares the reductions of one family (see the module docs).
macro_rules! reductions {
    (family: $family:literal;
     $( $(#[doc = $doc:literal])+
        $name:ident / $axis:ident / $with:ident $(, empty $empty:literal)?
        $(, takes $takes:literal)? $(, check $check:path)?
        => |$t:pat_param, $opts:pat_param, $count:pat_param| $body:expr ; )*
    ) => {
        /// The reduction objects of this family (`numpy.<name>` as a value).
        #[allow(non_upper_case_globals)]
        pub mod reductions {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[doc = $doc])+
                pub const $name: $crate::statistics::reduction::Reduction =
                    $crate::statistics::reduction::Reduction {
                        name: stringify!($name),
                        #[allow(unused_variables)]
                        build: |$t, $opts, $count| $body,
                        empty_error: reductions!(@empty $($empty)?),
                        takes: reductions!(@takes $($takes)?),
                        check: reductions!(@check $($check)?),
                        family: $family,
                        doc: concat!($($doc, "\n"),+),
                    };
            )*
        }

        /// Every reduction of this family, in declaration order.
        pub(crate) const ALL: &[$crate::statistics::reduction::Reduction] = &[$(reductions::$name),*];

        $(
            $(#[doc = $doc])+
            ///
            /// Over every axis (`axis=None`), a 0-d array. See
            /// [`reduce`](crate::statistics::reduction::reduce) for the errors.
            pub fn $name(a: &$crate::array::Array) -> cupy_core::error::Result<$crate::array::Array> {
                $crate::statistics::reduction::reduce(&reductions::$name, a, &Default::default())
            }

            $(#[doc = $doc])+
            ///
            /// With NumPy's keyword arguments ([`Reduce`](crate::Reduce): `axis`, `keepdims`,
            /// `dtype`, `out`, `ddof`, `initial`, `where_`, as the reduction takes them); an
            /// axis converts into it.
            pub fn $with(
                a: &$crate::array::Array,
                opts: impl Into<$crate::statistics::reduction::Reduce>,
            ) -> cupy_core::error::Result<$crate::array::Array> {
                $crate::statistics::reduction::reduce(&reductions::$name, a, &opts.into())
            }
        )*

        impl $crate::array::Array {
            $(
                $(#[doc = $doc])+
                ///
                /// Over every axis, a 0-d array (the method form of the function).
                pub fn $name(&self) -> cupy_core::error::Result<$crate::array::Array> {
                    $crate::statistics::reduction::reduce(&reductions::$name, self, &Default::default())
                }

                $(#[doc = $doc])+
                ///
                /// Over `axis` (an `isize`, `[0, 2]`, ...), keepdims false.
                pub fn $axis(
                    &self,
                    axis: impl Into<$crate::statistics::reduction::Axes>,
                ) -> cupy_core::error::Result<$crate::array::Array> {
                    $crate::statistics::reduction::reduce(
                        &reductions::$name,
                        self,
                        &$crate::statistics::reduction::Reduce::from(axis.into()),
                    )
                }

                $(#[doc = $doc])+
                ///
                /// With NumPy's keyword arguments ([`Reduce`](crate::Reduce)).
                pub fn $with(
                    &self,
                    opts: impl Into<$crate::statistics::reduction::Reduce>,
                ) -> cupy_core::error::Result<$crate::array::Array> {
                    $crate::statistics::reduction::reduce(&reductions::$name, self, &opts.into())
                }
            )*
        }

        impl $crate::custom::fuse::Sym {
            $(
                $(#[doc = $doc])+
                ///
                /// Over every axis, inside a [`fuse`](crate::fuse) closure.
                pub fn $name(self) -> $crate::custom::fuse::Sym {
                    self.reduce(reductions::$name, Default::default())
                }

                $(#[doc = $doc])+
                ///
                /// Over `axis`, keepdims false, inside a `fuse` closure.
                pub fn $axis(
                    self,
                    axis: impl Into<$crate::statistics::reduction::Axes>,
                ) -> $crate::custom::fuse::Sym {
                    self.reduce(
                        reductions::$name,
                        $crate::statistics::reduction::Reduce::from(axis.into()),
                    )
                }

                $(#[doc = $doc])+
                ///
                /// With `axis`, `keepdims` and `dtype` of [`Reduce`](crate::Reduce), inside a
                /// `fuse` closure (`out` is not taken there: write the result with
                /// [`Sym::reduce_out`](crate::Sym::reduce_out)).
                pub fn $with(
                    self,
                    opts: impl Into<$crate::statistics::reduction::Reduce>,
                ) -> $crate::custom::fuse::Sym {
                    self.reduce(reductions::$name, opts.into())
                }
            )*
        }
    };
    (@empty $empty:literal) => { Some($empty) };
    (@empty) => { None };
    (@takes $takes:literal) => { $takes };
    (@takes) => { "" };
    (@check $check:path) => { Some($check) };
    (@check) => { None };
}

pub mod averages;
pub mod correlation;
pub mod counting;
pub mod histogram;
pub mod histogramdd;
pub(crate) mod keywords;
pub mod nan;
pub mod order;
pub mod quantile;
pub mod reduction;
pub mod sums;
pub mod truth;
pub mod virtual_index;
mod weighted;

/// Every reduction object, by NumPy's name (`cupy::reductions::sum` is `numpy.sum`).
pub mod reductions {
    pub use super::averages::reductions::*;
    pub use super::counting::reductions::*;
    pub use super::nan::reductions::*;
    pub use super::order::reductions::*;
    pub use super::sums::reductions::*;
    pub use super::truth::reductions::*;
    pub use crate::sorting::search::reductions::*;
}

/// The families, in table order.
const FAMILIES: &[&[reduction::Reduction]] = &[
    sums::ALL,
    nan::ALL,
    order::ALL,
    averages::ALL,
    truth::ALL,
    counting::ALL,
    crate::sorting::search::ALL,
];

/// Every reduction cupy-rs declares.
pub fn all_reductions() -> impl Iterator<Item = &'static reduction::Reduction> {
    FAMILIES.iter().flat_map(|f| f.iter())
}

/// The reduction named `name` (NumPy's name), if cupy-rs declares it.
pub fn reduction(name: &str) -> Option<&'static reduction::Reduction> {
    all_reductions().find(|r| r.name() == name)
}

#[cfg(test)]
mod tests;
