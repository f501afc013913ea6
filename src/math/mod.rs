//! `cupy`'s mathematical functions: the ufuncs, declared once each in the file of their NumPy
//! family (arithmetic, exp_log, trig, hyperbolic, rounding, floating, bitwise, logic, complex,
//! misc).
//!
//! A declaration is one entry of `ufuncs!`:
//!
//! ```text
//! /// Hyperbolic sine, elementwise (`numpy.sinh`).
//! sinh(x): Float => |m, c| if c.is_complex() { math::complex_sinh(m, x) } else { math::sinh(m, x) };
//! ```
//!
//! the doc, the name and operands, the type [`Rule`](ufunc::Rule), and the body: an IR builder
//! from `cupy_core::kernel::math` over the operands (already cast to the compute dtype `c`),
//! with `m` the binder for shared subexpressions. It makes the [`Ufunc`](ufunc::Ufunc) object
//! `cupy::ufuncs::sinh`, the function `cupy::sinh(x)`, the method `a.sinh()`, the `fuse`
//! method `Sym::sinh` and the registry row.

/// Declares the ufuncs of one family (see the module docs). A ufunc of two outputs names them
/// after its operands, `divmod(x1, x2) -> (quotient, remainder): ...`, and its body gives a
/// pair of expressions; its function and method return a pair of arrays (NumPy's tuple) and it
/// has no `fuse` method.
macro_rules! ufuncs {
    (family: $family:literal;
     $( $(#[doc = $doc:literal])+
        $name:ident ($first:ident $(, $rest:ident)*) $(-> ($out0:ident, $out1:ident))?
            : $rule:ident => |$m:pat_param, $c:pat_param| $body:expr ; )*
    ) => {
        /// The ufunc objects of this family (`numpy.<name>` as a value).
        #[allow(non_upper_case_globals)]
        pub mod ufuncs {
            #[allow(unused_imports)]
            use super::*;
            $(
                ufunc_item! { @const [$($out0, $out1)?] $family, "cupy"; $(#[doc = $doc])+
                    $name ($first $(, $rest)*): $rule => |$m, $c| $body }
            )*
        }

        /// Every ufunc of this family, in declaration order.
        pub(crate) const ALL: &[$crate::math::ufunc::Ufunc] = &[$(ufuncs::$name),*];

        $(
            ufunc_item! { @api [$($out0, $out1)?] $(#[doc = $doc])+ $name ($first $(, $rest)*) }
        )*
    };
}

/// Declares a family of `cupyx.scipy.special` ufuncs (in [`crate::scipy::special`]): as
/// [`ufuncs!`], one output each, but named in `cupyx.scipy.special` and without `Array` methods
/// (SciPy's functions are not ndarray methods): the [`Ufunc`](ufunc::Ufunc) object, the function
/// and the `fuse` method. `[no_fuse_method]` after the operands leaves the `fuse` method out,
/// for a name NumPy's ufunc of the same name has taken there (`cbrt`, `exp2`): `fuse` reaches
/// those through `Sym::ufunc(&ufuncs::cbrt, ..)`.
macro_rules! special_ufuncs {
    (family: $family:literal;
     $( $(#[doc = $doc:literal])+
        $name:ident ($first:ident $(, $rest:ident)*) $([$flag:ident])?
            : $rule:ident => |$m:pat_param, $c:pat_param| $body:expr ; )*
    ) => {
        /// The ufunc objects of this family (`cupyx.scipy.special.<name>` as a value).
        #[allow(non_upper_case_globals)]
        pub mod ufuncs {
            #[allow(unused_imports)]
            use super::*;
            $(
                ufunc_item! { @const [] $family, "cupyx.scipy.special"; $(#[doc = $doc])+
                    $name ($first $(, $rest)*): $rule => |$m, $c| $body }
            )*
        }

        /// Every ufunc of this family, in declaration order.
        pub(crate) const ALL: &[$crate::math::ufunc::Ufunc] = &[$(ufuncs::$name),*];

        $(
            ufunc_item! { @special [$($flag)?] $(#[doc = $doc])+ $name ($first $(, $rest)*) }
        )*
    };
}

/// One entry of [`ufuncs!`]: `@const` makes the [`Ufunc`](ufunc::Ufunc) object, `@api` the
/// function, the method and (one output) the `fuse` method (`@function`: the function and the
/// `fuse` method alone, for [`special_ufuncs!`]; `@free_function`: the function alone;
/// `@special`: either, by the entry's flag); the bracket holds the names of two outputs, or
/// nothing.
macro_rules! ufunc_item {
    (@const [] $family:literal, $module:literal; $(#[doc = $doc:literal])+
     $name:ident ($first:ident $(, $rest:ident)*): $rule:ident => |$m:pat_param, $c:pat_param| $body:expr) => {
        $(#[doc = $doc])+
        pub const $name: $crate::math::ufunc::Ufunc = $crate::math::ufunc::Ufunc {
            name: stringify!($name),
            nin: [stringify!($first) $(, stringify!($rest))*].len(),
            nout: 1,
            rule: $crate::math::ufunc::Rule::$rule,
            body: |bind, compute, args| {
                ufunc_item!(@operands args; $first $(, $rest)*);
                #[allow(unused_variables)]
                let $m: &mut dyn cupy_core::kernel::math::Bind = bind;
                #[allow(unused_variables)]
                let $c: cupy_core::dtype::DType = compute;
                $body
            },
            bodies: None,
            family: $family,
            module: $module,
            doc: concat!($($doc, "\n"),+),
        };
    };
    (@const [$out0:ident, $out1:ident] $family:literal, $module:literal; $(#[doc = $doc:literal])+
     $name:ident ($first:ident $(, $rest:ident)*): $rule:ident => |$m:pat_param, $c:pat_param| $body:expr) => {
        $(#[doc = $doc])+
        pub const $name: $crate::math::ufunc::Ufunc = $crate::math::ufunc::Ufunc {
            name: stringify!($name),
            nin: [stringify!($first) $(, stringify!($rest))*].len(),
            nout: 2,
            rule: $crate::math::ufunc::Rule::$rule,
            body: |bind, compute, args| {
                ufunc_item!(@operands args; $first $(, $rest)*);
                #[allow(unused_variables)]
                let $m: &mut dyn cupy_core::kernel::math::Bind = bind;
                #[allow(unused_variables)]
                let $c: cupy_core::dtype::DType = compute;
                let (first, _): (cupy_core::kernel::ir::Expr, cupy_core::kernel::ir::Expr) = $body;
                first
            },
            bodies: Some(|bind, compute, args| {
                ufunc_item!(@operands args; $first $(, $rest)*);
                #[allow(unused_variables)]
                let $m: &mut dyn cupy_core::kernel::math::Bind = bind;
                #[allow(unused_variables)]
                let $c: cupy_core::dtype::DType = compute;
                let (a, b): (cupy_core::kernel::ir::Expr, cupy_core::kernel::ir::Expr) = $body;
                vec![a, b]
            }),
            family: $family,
            module: $module,
            doc: concat!($($doc, "\n"),+),
        };
    };
    (@operands $args:ident; $first:ident $(, $rest:ident)*) => {
        let mut operands = $args.into_iter();
        #[allow(unused_variables)]
        let $first = operands.next().expect("operand");
        $(
            #[allow(unused_variables)]
            let $rest = operands.next().expect("operand");
        )*
    };
    (@special [] $(#[doc = $doc:literal])+ $name:ident ($first:ident $(, $rest:ident)*)) => {
        ufunc_item! { @function $(#[doc = $doc])+ $name ($first $(, $rest)*) }
    };
    (@special [no_fuse_method] $(#[doc = $doc:literal])+ $name:ident ($first:ident $(, $rest:ident)*)) => {
        ufunc_item! { @free_function $(#[doc = $doc])+ $name ($first $(, $rest)*) }
    };
    (@free_function $(#[doc = $doc:literal])+ $name:ident ($first:ident $(, $rest:ident)*)) => {
        $(#[doc = $doc])+
        ///
        /// Broadcasting and NEP 50 promotion as NumPy; see [`apply`](crate::math::ufunc::apply)
        /// for the errors.
        pub fn $name<'a>(
            $first: impl Into<$crate::math::ufunc::Arg<'a>>
            $(, $rest: impl Into<$crate::math::ufunc::Arg<'a>>)*
        ) -> cupy_core::error::Result<$crate::array::Array> {
            $crate::math::ufunc::apply(&ufuncs::$name, &[$first.into() $(, $rest.into())*], None)
        }
    };
    (@function $(#[doc = $doc:literal])+ $name:ident ($first:ident $(, $rest:ident)*)) => {
        ufunc_item! { @free_function $(#[doc = $doc])+ $name ($first $(, $rest)*) }

        #[allow(clippy::should_implement_trait)]
        impl $crate::custom::fuse::Sym {
            $(#[doc = $doc])+
            ///
            /// Symbolically, inside a [`fuse`](crate::fuse) closure.
            pub fn $name(
                self
                $(, $rest: impl Into<$crate::custom::fuse::Operand>)*
            ) -> $crate::custom::fuse::Sym {
                $crate::custom::fuse::Sym::apply(&ufuncs::$name, &[self.into() $(, $rest.into())*])
            }
        }
    };
    (@api [] $(#[doc = $doc:literal])+ $name:ident ($first:ident $(, $rest:ident)*)) => {
        ufunc_item! { @function $(#[doc = $doc])+ $name ($first $(, $rest)*) }

        #[allow(clippy::needless_lifetimes, clippy::should_implement_trait)]
        impl $crate::array::Array {
            $(#[doc = $doc])+
            ///
            /// The method form of the function of the same name (`self` is the first operand).
            pub fn $name<'a>(
                &'a self
                $(, $rest: impl Into<$crate::math::ufunc::Arg<'a>>)*
            ) -> cupy_core::error::Result<$crate::array::Array> {
                $crate::math::ufunc::apply(
                    &ufuncs::$name,
                    &[$crate::math::ufunc::Arg::Array(self) $(, $rest.into())*],
                    None,
                )
            }
        }
    };
    (@api [$out0:ident, $out1:ident] $(#[doc = $doc:literal])+ $name:ident ($first:ident $(, $rest:ident)*)) => {
        $(#[doc = $doc])+
        ///
        #[doc = concat!("Returns `(", stringify!($out0), ", ", stringify!($out1), ")`; broadcasting and NEP 50 promotion as NumPy; see [`apply_outs`](crate::math::ufunc::apply_outs) for `out=` and the errors.")]
        pub fn $name<'a>(
            $first: impl Into<$crate::math::ufunc::Arg<'a>>
            $(, $rest: impl Into<$crate::math::ufunc::Arg<'a>>)*
        ) -> cupy_core::error::Result<($crate::array::Array, $crate::array::Array)> {
            let mut v = $crate::math::ufunc::apply_outs(
                &ufuncs::$name,
                &[$first.into() $(, $rest.into())*],
                &[],
            )?;
            let $out1 = v.pop().expect("two outputs");
            let $out0 = v.pop().expect("two outputs");
            Ok(($out0, $out1))
        }

        #[allow(clippy::needless_lifetimes)]
        impl $crate::array::Array {
            $(#[doc = $doc])+
            ///
            /// The method form of the function of the same name (`self` is the first operand).
            pub fn $name<'a>(
                &'a self
                $(, $rest: impl Into<$crate::math::ufunc::Arg<'a>>)*
            ) -> cupy_core::error::Result<($crate::array::Array, $crate::array::Array)> {
                $name(self $(, $rest)*)
            }
        }

        impl $crate::custom::fuse::Sym {
            $(#[doc = $doc])+
            ///
            #[doc = concat!("Symbolically, inside a [`fuse`](crate::fuse) closure: `(", stringify!($out0), ", ", stringify!($out1), ")`.")]
            pub fn $name(
                self
                $(, $rest: impl Into<$crate::custom::fuse::Operand>)*
            ) -> ($crate::custom::fuse::Sym, $crate::custom::fuse::Sym) {
                let v = $crate::custom::fuse::Sym::ufunc(&ufuncs::$name, &[self.into() $(, $rest.into())*]);
                (v[0], v[1])
            }
        }
    };
}

/// Declares other names of ufuncs (`abs` for `absolute`): the same object, function, method and
/// `fuse` method under the second name.
macro_rules! ufunc_aliases {
    ($( $(#[doc = $doc:literal])+ $alias:ident = $name:ident ($first:ident $(, $rest:ident)*) ; )*) => {
        $(
            $(#[doc = $doc])+
            pub fn $alias<'a>(
                $first: impl Into<$crate::math::ufunc::Arg<'a>>
                $(, $rest: impl Into<$crate::math::ufunc::Arg<'a>>)*
            ) -> cupy_core::error::Result<$crate::array::Array> {
                $name($first $(, $rest)*)
            }
        )*
        /// Other names of this family's ufuncs.
        #[allow(non_upper_case_globals)]
        pub mod aliases {
            $(
                $(#[doc = $doc])+
                pub const $alias: $crate::math::ufunc::Ufunc = super::ufuncs::$name;
            )*
        }
        #[allow(clippy::needless_lifetimes)]
        impl $crate::array::Array {
            $(
                $(#[doc = $doc])+
                pub fn $alias<'a>(
                    &'a self
                    $(, $rest: impl Into<$crate::math::ufunc::Arg<'a>>)*
                ) -> cupy_core::error::Result<$crate::array::Array> {
                    self.$name($($rest),*)
                }
            )*
        }
        impl $crate::custom::fuse::Sym {
            $(
                $(#[doc = $doc])+
                pub fn $alias(
                    self
                    $(, $rest: impl Into<$crate::custom::fuse::Operand>)*
                ) -> $crate::custom::fuse::Sym {
                    self.$name($($rest),*)
                }
            )*
        }
    };
}

pub mod arithmetic;
pub mod bitwise;
pub mod complex;
pub mod exp_log;
pub mod floating;
pub mod hyperbolic;
pub mod logic;
pub mod methods;
pub mod misc;
pub mod options;
pub mod resolve;
pub mod rounding;
pub mod routines;
pub mod sumprod;
pub mod trig;
pub mod ufunc;

/// Every ufunc object, by NumPy's name (`cupy::ufuncs::add` is `numpy.add`).
pub mod ufuncs {
    pub use super::arithmetic::aliases::*;
    pub use super::arithmetic::ufuncs::*;
    pub use super::bitwise::aliases::*;
    pub use super::bitwise::ufuncs::*;
    pub use super::complex::aliases::*;
    pub use super::complex::ufuncs::*;
    pub use super::exp_log::ufuncs::*;
    pub use super::floating::ufuncs::*;
    pub use super::hyperbolic::aliases::*;
    pub use super::hyperbolic::ufuncs::*;
    pub use super::logic::ufuncs::*;
    pub use super::misc::aliases::*;
    pub use super::misc::ufuncs::*;
    pub use super::rounding::ufuncs::*;
    pub use super::trig::aliases::*;
    pub use super::trig::ufuncs::*;
}

/// The families, in table order.
const FAMILIES: &[&[ufunc::Ufunc]] = &[
    arithmetic::ALL,
    misc::ALL,
    exp_log::ALL,
    trig::ALL,
    hyperbolic::ALL,
    rounding::ALL,
    floating::ALL,
    complex::ALL,
    logic::ALL,
    bitwise::ALL,
];

/// Every ufunc cupy-rs declares (one entry per ufunc; aliases are not repeated).
pub fn all_ufuncs() -> impl Iterator<Item = &'static ufunc::Ufunc> {
    FAMILIES.iter().flat_map(|f| f.iter())
}

/// The ufunc named `name` (NumPy's name or one of its other names: `divide`, `abs`, `conj`,
/// `bitwise_not`, `degrees`, `radians`), if cupy-rs declares it.
pub fn ufunc(name: &str) -> Option<&'static ufunc::Ufunc> {
    let name = match name {
        "divide" => "true_divide",
        "abs" => "absolute",
        "conj" => "conjugate",
        "bitwise_not" => "invert",
        "degrees" => "rad2deg",
        "radians" => "deg2rad",
        n => n,
    };
    all_ufuncs().find(|u| u.name() == name)
}
