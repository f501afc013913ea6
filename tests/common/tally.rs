//! Per-backend tallies of golden cases, and the loop that runs one golden group.

use super::*;

#[derive(Default, Debug, Clone, Copy)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
}

/// Per-backend counts of one test, with the failures; [`Tally::finish`] prints and asserts.
pub struct Tally {
    name: String,
    per: BTreeMap<String, Counts>,
    failures: Vec<String>,
    skips: Vec<String>,
    /// Seconds each backend spent (golden groups), for CI-time budgets in the report.
    secs: BTreeMap<String, f64>,
}

impl Tally {
    pub fn new(name: &str) -> Tally {
        Tally {
            name: name.into(),
            per: BTreeMap::new(),
            failures: vec![],
            skips: vec![],
            secs: BTreeMap::new(),
        }
    }
    /// Adds `secs` seconds to `dev`'s time (printed by [`Tally::finish`]).
    pub fn time(&mut self, dev: &Device, secs: f64) {
        *self.secs.entry(dev.label()).or_default() += secs;
    }
    fn c(&mut self, dev: &Device) -> &mut Counts {
        self.per.entry(dev.label()).or_default()
    }
    pub fn pass(&mut self, dev: &Device) {
        self.c(dev).passed += 1;
    }
    pub fn fail(&mut self, dev: &Device, case: &str, msg: impl std::fmt::Display) {
        self.c(dev).failed += 1;
        self.failures
            .push(format!("FAIL [{}] {case}: {msg}", dev.label()));
    }
    pub fn skip(&mut self, dev: &Device, case: &str, why: impl std::fmt::Display) {
        self.c(dev).skipped += 1;
        self.skips
            .push(format!("skip [{}] {case}: {why}", dev.label()));
    }
    /// Records `r`: Ok passes; `DTypeNotSupported` skips; other errors fail.
    pub fn check(&mut self, dev: &Device, case: &str, r: std::result::Result<(), CaseError>) {
        match r {
            Ok(()) => self.pass(dev),
            Err(CaseError::Skip(w)) => self.skip(dev, case, w),
            Err(CaseError::Fail(w)) => self.fail(dev, case, w),
        }
    }
    pub fn finish(self) {
        for s in &self.skips {
            println!("{s}");
        }
        for f in &self.failures {
            println!("{f}");
        }
        for (dev, c) in &self.per {
            let took = self
                .secs
                .get(dev)
                .map(|s| format!(" in {s:.1} s"))
                .unwrap_or_default();
            let line = format!(
                "{}: [{dev}] {} passed, {} failed, {} skipped (DTypeNotSupported){took}",
                self.name, c.passed, c.failed, c.skipped
            );
            println!("{line}");
            report(&format!("{} {line}", dev.split(':').next().unwrap_or("?")));
        }
        if !self.failures.is_empty() {
            let mut head: Vec<&String> = self.failures.iter().take(25).collect();
            let more = self.failures.len().saturating_sub(head.len());
            let extra = format!("... and {more} more (run with --nocapture to see all)");
            if more > 0 {
                head.push(&extra);
            }
            panic!(
                "{}: {} case(s) failed:\n{}",
                self.name,
                self.failures.len(),
                head.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
}

/// Why one case did not pass.
pub enum CaseError {
    Skip(String),
    Fail(String),
}

impl From<Error> for CaseError {
    fn from(e: Error) -> CaseError {
        match e {
            Error::DTypeNotSupported { .. } => CaseError::Skip(e.to_string()),
            e => CaseError::Fail(format!("unexpected error: {e}")),
        }
    }
}
impl From<String> for CaseError {
    fn from(s: String) -> CaseError {
        CaseError::Fail(s)
    }
}

/// Runs every case of a golden group on every backend.
///
/// `exec` computes the case's result on the device; `tol` picks the float tolerance;
/// `expect_err` says whether an error matches the NumPy exception the case records.
pub fn run_group(
    group: &str,
    exec: impl Fn(&Golden, &Value, &[Operand], &Device) -> Result<Array>,
    tol: impl Fn(&Golden, &Value, &Device) -> Tol,
    expect_err: impl Fn(&Value, &Error) -> bool,
) {
    let g = Golden::load(group);
    let mut t = Tally::new(group);
    // Bisecting a driver hang: CUPY_GOLDEN_TRACE prints each case id before it runs (the last
    // one printed is the culprit); CUPY_GOLDEN_SKIP lists case ids (comma-separated) to leave out.
    let trace = std::env::var_os("CUPY_GOLDEN_TRACE").is_some();
    let skip = std::env::var("CUPY_GOLDEN_SKIP").unwrap_or_default();
    let skip: Vec<&str> = skip.split(',').filter(|s| !s.is_empty()).collect();
    for dev in backends() {
        let start = std::time::Instant::now();
        for case in &g.cases {
            let id = case["id"].as_str().unwrap();
            if skip.contains(&id) {
                continue;
            }
            if trace {
                use std::io::Write;
                eprintln!("golden {group} {} {id}", dev.label());
                let _ = std::io::stderr().flush();
            }
            let r = run_case(&g, case, &dev, &exec, &tol, &expect_err);
            t.check(&dev, id, r);
        }
        t.time(&dev, start.elapsed().as_secs_f64());
    }
    t.finish();
}

fn run_case(
    g: &Golden,
    case: &Value,
    dev: &Device,
    exec: &impl Fn(&Golden, &Value, &[Operand], &Device) -> Result<Array>,
    tol: &impl Fn(&Golden, &Value, &Device) -> Tol,
    expect_err: &impl Fn(&Value, &Error) -> bool,
) -> std::result::Result<(), CaseError> {
    let ops = match operands(g, case, dev) {
        Ok(o) => o,
        Err(e) if case.get("error").is_some() && expect_err(case, &e) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let r = exec(g, case, &ops, dev);
    if let Some(err) = case.get("error") {
        return match r {
            Ok(a) => Err(CaseError::Fail(format!(
                "NumPy raises {} ({}), got a {} array of shape {:?}",
                err,
                case["message"].as_str().unwrap_or(""),
                a.dtype(),
                a.shape()
            ))),
            Err(e) if expect_err(case, &e) => Ok(()),
            Err(e @ Error::DTypeNotSupported { .. }) => Err(CaseError::Skip(e.to_string())),
            Err(e) => Err(CaseError::Fail(format!(
                "NumPy raises {err} ({}), got a different error: {e:?}",
                case["message"].as_str().unwrap_or("")
            ))),
        };
    }
    let got = r?;
    let want = g.array(case["expected"].as_str().unwrap());
    let tol = tol(g, case, dev);
    compare(&got, &want, &tol).map_err(|m| {
        // A DTypeNotSupported surfacing on read is still a skip.
        CaseError::Fail(m)
    })?;
    // Inputs must be unchanged by the op (they are views of fresh uploads).
    Ok(())
}

/// Maps NumPy's generic exception names to our variants (groups refine ValueError).
pub fn generic_error_match(case: &Value, e: &Error) -> bool {
    match case["error"].as_str().unwrap_or("") {
        "TypeError" => matches!(e, Error::TypeError { .. }),
        "OverflowError" => matches!(e, Error::ScalarOverflow { .. }),
        _ => false,
    }
}

/// `Tol::Scaled` from a case's `scale` (array) or `scale_max` (number) and `n`.
pub fn scaled_tol(g: &Golden, case: &Value) -> Tol {
    let n = case["n"].as_u64().unwrap_or(1) as usize;
    let scale = if let Some(s) = case.get("scale") {
        Scale::PerElement(g.array(s.as_str().unwrap()).f64s())
    } else if let Some(m) = case.get("scale_max") {
        Scale::Max(m.as_f64().unwrap())
    } else {
        return Tol::EXACT;
    };
    Tol::Scaled { n, scale }
}

/// True if `dev` is a wgpu device.
pub fn is_wgpu(dev: &Device) -> bool {
    dev.kind() == BackendKind::Wgpu
}

/// Appends a line to the file named by `CUPY_TEST_REPORT` (CI checks which backends ran).
pub fn report(line: &str) {
    if let Some(path) = std::env::var_os("CUPY_TEST_REPORT") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}
