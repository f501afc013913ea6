//! Draws the bench's JSON lines as an SVG bar chart of speed ratios: for every case that CuPy's
//! baseline (`bench/cupy_baseline.py`, `"lib": "cupy"`) and ours (`examples/bench`,
//! `"lib": "cupy-rs"`, one bar per `"backend"`) both timed, CuPy's milliseconds over ours (above
//! 1: faster than CuPy), on a log scale with a line at 1.
//!
//! `cargo run --example bench_chart -- OUT.svg LINES.jsonl [MORE.jsonl ...]` (files of JSON
//! lines, any mix of ours and CuPy's; lines without `"ms"`, or with an error, are skipped; a
//! case timed twice keeps its last figure). Text is SVG `<text>` in the viewer's sans-serif font:
//! no font is read or bundled.

use plotters::prelude::*;
use std::collections::BTreeMap;

/// `(case, series) -> ms`, series being `"cupy"` or our backend's name.
type Figures = BTreeMap<(String, String), f64>;

fn read(paths: &[String]) -> Result<Figures, Box<dyn std::error::Error>> {
    let mut f = Figures::new();
    for p in paths {
        for line in std::fs::read_to_string(p)?.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let (Some(case), Some(ms)) = (v["case"].as_str(), v["ms"].as_f64()) else {
                continue;
            };
            if ms <= 0.0 || v.get("error").is_some() {
                continue;
            }
            let series = match v["lib"].as_str() {
                Some("cupy") => "cupy".to_string(),
                Some("cupy-rs") => format!("cupy-rs {}", v["backend"].as_str().unwrap_or("?")),
                _ => continue,
            };
            f.insert((case.to_string(), series), ms);
        }
    }
    Ok(f)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        return Err("usage: bench_chart OUT.svg LINES.jsonl [MORE.jsonl ...]".into());
    }
    let figures = read(&args[1..])?;
    let ours: Vec<String> = {
        let mut s: Vec<String> = figures
            .keys()
            .map(|(_, s)| s.clone())
            .filter(|s| s != "cupy")
            .collect();
        s.sort();
        s.dedup();
        s
    };
    // (case, ratio per series of ours)
    let mut rows: Vec<(String, Vec<Option<f64>>)> = vec![];
    for ((case, series), &cupy) in &figures {
        if series != "cupy" {
            continue;
        }
        let r: Vec<Option<f64>> = ours
            .iter()
            .map(|s| figures.get(&(case.clone(), s.clone())).map(|ms| cupy / ms))
            .collect();
        if r.iter().any(Option::is_some) {
            rows.push((case.clone(), r));
        }
    }
    if rows.is_empty() {
        return Err("no case has both CuPy's figure and ours".into());
    }
    let all = rows.iter().flat_map(|(_, r)| r.iter().flatten().copied());
    let (lo, hi) = all.fold((1.0f64, 1.0f64), |(a, b), x| (a.min(x), b.max(x)));
    // Room on the right for the legend.
    let (lo, hi) = (lo / 1.5, hi * 6.0);
    let per_row = 14 * ours.len() as u32 + 10;
    let height = 90 + per_row * rows.len() as u32;
    let root = SVGBackend::new(&args[0], (1000, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let n = rows.len() as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "speed vs CuPy (CuPy ms / cupy-rs ms; right of 1: faster)",
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(260)
        .build_cartesian_2d((lo..hi).log_scale(), -0.5..n - 0.5)?;
    let names: Vec<String> = rows.iter().map(|(c, _)| c.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows.len().max(1))
        .y_label_formatter(&|y| {
            // Row i is centred on y = n - 1 - i.
            let r = y.round();
            let i = n - 1.0 - r;
            if (y - r).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].clone()
            } else {
                String::new()
            }
        })
        .x_desc("ratio (log scale)")
        .draw()?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN];
    let band = 0.8 / ours.len() as f64;
    for (k, s) in ours.iter().enumerate() {
        let color = colors[k % colors.len()];
        chart
            .draw_series(rows.iter().enumerate().filter_map(|(i, (_, r))| {
                let v = r[k]?;
                let top = n - 1.0 - i as f64 + 0.4 - band * k as f64;
                Some(Rectangle::new([(lo, top - band), (v, top)], color.filled()))
            }))?
            .label(s.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart.draw_series(LineSeries::new(
        [(1.0, -0.5), (1.0, n - 0.5)],
        BLACK.stroke_width(1),
    ))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    root.present()?;
    println!("{} cases, series {:?} -> {}", rows.len(), ours, args[0]);
    Ok(())
}
