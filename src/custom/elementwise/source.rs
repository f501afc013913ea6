//! The kernel's text as lowered (options' macros, `loop_prep`, operation, `after_loop`), the
//! construction-time syntax check, and parse errors mapped back to their part.

use super::{option_defines, ElementwiseKernel};
use cupy_core::dtype::DType;
use cupy_core::error::{Error, Result};
use cupy_core::kernel::lang::{lower_elementwise, Binding, ElementwiseSource, Name, TypeSpec};

use crate::custom::params::*;

impl ElementwiseKernel {
    /// When every type is concrete, lowers once with every non-raw parameter bound as a scalar
    /// (the binding under which the most kernels are valid: a scalar may bound a loop, an
    /// array may not), so errors in the operation surface at construction. With placeholders,
    /// errors surface at the first call (as CuPy's do), since typing depends on the arguments.
    pub(super) fn check_syntax(&self) -> Result<()> {
        let types: Vec<(String, DType)> = vec![];
        if self
            .ins
            .iter()
            .chain(&self.outs)
            .any(|p| matches!(p.ty, TypeSpec::Placeholder(_)))
        {
            return Ok(());
        }
        let mut names = vec![];
        let (mut np, mut nr) = (0, 0);
        for p in &self.ins {
            let dtype = type_of(&self.name, p, &types)?;
            let binding = if p.raw {
                nr += 1;
                Binding::Raw(nr - 1)
            } else {
                np += 1;
                Binding::Param(np - 1)
            };
            names.push(Name {
                name: p.name.clone(),
                dtype,
                binding,
            });
        }
        let mut no = 0;
        for p in &self.outs {
            let binding = if p.raw {
                nr += 1;
                Binding::Raw(nr - 1)
            } else {
                no += 1;
                Binding::Output(no - 1)
            };
            names.push(Name {
                name: p.name.clone(),
                dtype: type_of(&self.name, p, &types)?,
                binding,
            });
        }
        lower_elementwise(&ElementwiseSource {
            name: &self.name,
            operation: &self.source_text(),
            preamble: &self.preamble_text(),
            names: &names,
            types: &types,
            size_param: Some(np),
        })
        .map(|_| ())
        .map_err(|e| self.remap(e))
    }

    /// The preamble lowered: the `-D` macros of the options, one `#define` a line, then the
    /// preamble.
    pub(super) fn preamble_text(&self) -> String {
        format!("{}{}", option_defines(&self.options), self.preamble)
    }

    /// The code lowered: `loop_prep`, the operation and `after_loop`, each on its own lines
    /// (errors are mapped back to their part by [`ElementwiseKernel::remap`]).
    pub(super) fn source_text(&self) -> String {
        if self.loop_prep.is_empty() && self.after_loop.is_empty() {
            return self.operation.clone();
        }
        let mut t = String::new();
        if !self.loop_prep.is_empty() {
            t.push_str(&self.loop_prep);
            t.push_str(";\n");
        }
        t.push_str(&self.operation);
        if !self.after_loop.is_empty() {
            t.push_str(";\n");
            t.push_str(&self.after_loop);
        }
        t
    }

    /// Maps a parse error in [`ElementwiseKernel::source_text`] to its part and line.
    pub(super) fn remap(&self, e: Error) -> Error {
        match e {
            Error::Parse {
                kernel,
                part,
                line,
                column,
                msg,
                snippet,
            } if part == "preamble" => Error::Parse {
                kernel,
                part,
                line: line.saturating_sub(option_defines(&self.options).matches('\n').count()),
                column,
                msg,
                snippet,
            },
            Error::Parse {
                kernel,
                part,
                mut line,
                column,
                msg,
                snippet,
            } if part == "operation" => {
                let lines = |t: &str| t.matches('\n').count() + 1;
                let prep = if self.loop_prep.is_empty() {
                    0
                } else {
                    lines(&self.loop_prep)
                };
                let op = lines(&self.operation);
                let part = if line <= prep {
                    "loop_prep".to_string()
                } else if line <= prep + op {
                    line -= prep;
                    part
                } else {
                    line -= prep + op;
                    "after_loop".to_string()
                };
                Error::Parse {
                    kernel,
                    part,
                    line,
                    column,
                    msg,
                    snippet,
                }
            }
            e => e,
        }
    }
}
