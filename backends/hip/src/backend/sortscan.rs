//! `Backend::scan` and `Backend::sort` on HIP: the hand-written kernels of `hip-kernels/` and
//! their launch plans (shared with the CUDA backend: [`cupy_core::gpu::sortscan`]), compiled by
//! hipRTC for the device's gfx target with its wavefront size (64 on CDNA/GCN, 32 on RDNA).

pub(crate) use cupy_core::gpu::sortscan as hk;

/// The wavefront size hipRTC compiles for on `arch` (gfx10/gfx11 default to wave32).
pub fn warp_size(arch: &str) -> u32 {
    if arch.starts_with("gfx10") || arch.starts_with("gfx11") || arch.starts_with("gfx12") {
        32
    } else {
        64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wavefront_sizes() {
        assert_eq!(warp_size("gfx90a:sramecc+:xnack-"), 64);
        assert_eq!(warp_size("gfx942"), 64);
        assert_eq!(warp_size("gfx1030"), 32);
        assert_eq!(warp_size("gfx1100"), 32);
    }

    #[test]
    fn assembled_sources_instantiate_every_dtype() {
        let scan = hk::assemble(hk::SCAN_CU, 64);
        let sort = hk::assemble(hk::RADIX_SORT_CU, 32);
        for src in [&scan, &sort] {
            assert!(src.starts_with("#define HK_WARP_SIZE "));
            assert!(
                !src.lines().any(|l| l.trim_start().starts_with("#include")),
                "a header is still included"
            );
        }
        for d in hk::DTYPES {
            assert!(scan.contains(&format!("HK_SCAN_ENTRIES({d})")), "scan {d}");
            assert!(sort.contains(&format!("HK_SORT_DT({d},")), "sort {d}");
            assert!(sort.contains(&format!("HK_SELECT_DT({d},")), "select {d}");
        }
        assert!(
            sort.contains("HK_SORT_K(u32, HK_SORT_IT32)")
                && sort.contains("HK_SORT_K(u64, HK_SORT_IT64)")
        );
        assert!(sort.contains("HK_SELECT_K(u32)") && sort.contains("HK_SELECT_K(u64)"));
        assert_eq!(hk::ScanArgs::default().bytes().len(), 8 * 8);
        assert_eq!(hk::SortArgs::default().bytes().len(), 26 * 8);
        // the plan's tile sizes are the kernels' defaults
        assert!(sort.contains(&format!("#define HK_SORT_IT32 {}\n", hk::SORT_IT32)));
        assert!(sort.contains(&format!("#define HK_SORT_IT64 {}\n", hk::SORT_IT64)));
        assert_eq!(hk::SelectArgs::default().bytes().len(), 16 * 8);
    }

    /// One recorded launch: module, entry, grid, argument words.
    type Run = (hk::HkModule, String, (u32, u32), Vec<u64>);

    /// A launcher that records what the shared plans ask for (fake device addresses).
    #[derive(Default)]
    struct Rec {
        temps: std::cell::RefCell<Vec<(cupy_core::DType, usize, u64)>>,
        runs: std::cell::RefCell<Vec<Run>>,
    }

    #[derive(Debug)]
    struct FakeBuf(usize, cupy_core::DType);

    impl cupy_core::DeviceBuffer for FakeBuf {
        fn len(&self) -> usize {
            self.0
        }
        fn dtype(&self) -> cupy_core::DType {
            self.1
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    impl hk::Launcher for Rec {
        fn temp(
            &self,
            dtype: cupy_core::DType,
            len: usize,
        ) -> cupy_core::Result<(cupy_core::Buffer, u64)> {
            let mut t = self.temps.borrow_mut();
            let addr = 0x1_0000_0000 * (t.len() as u64 + 1);
            t.push((dtype, len, addr));
            Ok((std::sync::Arc::new(FakeBuf(len, dtype)), addr))
        }
        fn run(
            &self,
            module: hk::HkModule,
            entry: &str,
            grid: (u32, u32),
            args: &[u8],
        ) -> cupy_core::Result<()> {
            let words = args
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            self.runs
                .borrow_mut()
                .push((module, entry.to_string(), grid, words));
            Ok(())
        }
    }

    fn entries(r: &Rec) -> Vec<(String, (u32, u32))> {
        r.runs
            .borrow()
            .iter()
            .map(|(_, e, g, _)| (e.clone(), *g))
            .collect()
    }

    #[test]
    fn scan_plans() {
        use cupy_core::DType;
        // Short rows: one launch, a block per row.
        let r = Rec::default();
        hk::launch_scan(&r, false, DType::Float32, 0x100, 0x200, 3, 100, 100, 1).unwrap();
        assert_eq!(entries(&r), vec![("cupy_scan_sum_float32".into(), (3, 1))]);
        let w = &r.runs.borrow()[0].3;
        assert_eq!(&w[..8], &[0x100, 0x200, 3, 100, 100, 1, 0, 0]);
        assert!(r.temps.borrow().is_empty());
        // Long rows: tile totals (u64 for 8-byte dtypes), prefixes, apply.
        let r = Rec::default();
        let n = 2 * hk::SCAN_TILE + 1;
        hk::launch_scan(&r, true, DType::Float64, 0x100, 0x200, 2, n, n as isize, 1).unwrap();
        assert_eq!(
            *r.temps.borrow(),
            vec![(DType::UInt64, 2 * 3, 0x1_0000_0000)]
        );
        assert_eq!(
            entries(&r),
            vec![
                ("cupy_scan_totals_prod_float64".into(), (3, 2)),
                ("cupy_scan_prefixes_prod_float64".into(), (2, 1)),
                ("cupy_scan_apply_prod_float64".into(), (3, 2)),
            ]
        );
        // More than 65535 rows of long rows: chunks with moved pointers.
        let r = Rec::default();
        let batch = 65536;
        hk::launch_scan(&r, false, DType::Int32, 0, 0, batch, n, n as isize, 1).unwrap();
        let runs = r.runs.borrow();
        assert_eq!(runs.len(), 6);
        assert_eq!((runs[0].2, runs[3].2), ((3, 65535), (3, 1)));
        let c = &runs[3].3;
        let item = 4u64;
        assert_eq!(c[0], 65535 * n as u64 * item); // input
        assert_eq!(c[1], 65535 * n as u64 * item); // output
        assert_eq!(c[2], 1); // rows in the chunk
        assert_eq!(c[6], 0x1_0000_0000 + 65535 * 3 * 4); // partial (u32 totals)
        assert_eq!(c[7], 3); // tiles
    }

    #[test]
    fn sort_plans() {
        use cupy_core::DType;
        // Rows that fit a block: init, one block per row, gather from the second positions.
        let r = Rec::default();
        hk::launch_sort(&r, DType::Float32, 0x100, None, None, 2, 1000, false, false).unwrap();
        assert_eq!(
            *r.temps.borrow(),
            vec![
                (DType::Float32, 2000, 0x1_0000_0000),
                (DType::UInt32, 2000, 0x2_0000_0000),
                (DType::UInt32, 2000, 0x3_0000_0000),
                (DType::UInt32, 2000, 0x4_0000_0000),
            ]
        );
        assert_eq!(
            entries(&r),
            vec![
                ("cupy_sort_init_float32".into(), (8, 1)),
                ("cupy_sort_block_u32".into(), (2, 1)),
                ("cupy_sort_gather_float32".into(), (8, 1)),
            ]
        );
        assert_eq!(r.runs.borrow()[2].3[5], 0x4_0000_0000); // pos_in = pos1

        // Radix path (onesweep) for int64 keys with values: the control words (and the row
        // counts zeroed), the init (every pass's row counts), one onesweep launch per pass,
        // the finish. No key copy (an integer map is invertible); the values copied.
        let r = Rec::default();
        let n = hk::SORT_TILE + 1000; // two init tiles, 9 onesweep tiles of 2048
        hk::launch_sort(
            &r,
            DType::Int64,
            0x100,
            None,
            Some(0x900),
            3,
            n,
            false,
            false,
        )
        .unwrap();
        let temps = r.temps.borrow();
        let kinds: Vec<DType> = temps.iter().map(|t| t.0).collect();
        use DType::{Int64, UInt32, UInt64};
        assert_eq!(
            kinds,
            [Int64, UInt64, UInt64, UInt32, UInt32, UInt32, UInt32, UInt64]
        );
        assert_eq!(temps[5], (UInt32, 3 * 8 * 256, 0x6_0000_0000)); // row counts
        assert_eq!(temps[6].1, 2 * 3 * 9 * 256); // look-back words
        assert_eq!(temps[7].1, 7); // ctl and tile counters
        let e = entries(&r);
        assert_eq!(e.len(), 1 + 1 + 8 + 1);
        assert_eq!(e[0], ("cupy_sort_ctl".into(), (24, 1)));
        assert_eq!(e[1], ("cupy_sort_tinit_int64".into(), (2, 3)));
        assert_eq!(e[2], ("cupy_sort_onesweep_u64".into(), (27, 1)));
        assert_eq!(e[10].0, "cupy_sort_finish_int64");
        let runs = r.runs.borrow();
        assert_eq!(runs[3].3[12], 8); // second pass shift
        let f = &runs[10].3;
        assert_eq!((f[1], f[2], f[3]), (0x900, 0, 0x1_0000_0000)); // vals, no korig, vorig
        assert_eq!((f[15], f[17], f[18], f[19]), (1, 8, 0, 0)); // vmode, passes, lossy, iota
        assert_eq!((f[8], f[13]), (0, 0)); // no per-tile histogram or scan
        assert_eq!((f[20], f[21], f[22]), (0x6_0000_0000, 0x7_0000_0000, 9)); // ghist, look, nos

        // argsort of float32 positions: the key copy (NaN, -0.0), no value copy.
        let r = Rec::default();
        hk::launch_sort(
            &r,
            DType::Float32,
            0x100,
            None,
            Some(0x900),
            1,
            n,
            true,
            false,
        )
        .unwrap();
        assert_eq!(r.temps.borrow()[0].0, DType::Float32);
        let f = r.runs.borrow().last().unwrap().3.clone();
        assert_eq!((f[2], f[3], f[15], f[19]), (0x1_0000_0000, 0, 1, 1));
        assert_eq!(f[25], 0); // the keys are written
                              // out of place, the keys unwanted (argsort): no key copy (the source is it), nokeys.
        let r = Rec::default();
        hk::launch_sort(
            &r,
            DType::Float32,
            0x100,
            Some(0x500),
            Some(0x900),
            1,
            n,
            true,
            true,
        )
        .unwrap();
        assert!(r.temps.borrow().iter().all(|t| t.0 != DType::Float32));
        let f = r.runs.borrow().last().unwrap().3.clone();
        assert_eq!((f[2], f[24], f[25]), (0x500, 0x500, 1)); // korig = src, nokeys
                                                             // float16 keys only: 4 passes on u32 keys, the bits carried (vmode 2), lossy: both
                                                             // onesweep kernels per pass (the device decides which one works).
        let r = Rec::default();
        hk::launch_sort(&r, DType::Float16, 0x100, None, None, 1, 5000, false, false).unwrap();
        let e = entries(&r);
        assert_eq!(e.len(), 1 + 1 + 2 * 4 + 1);
        assert_eq!(e[2], ("cupy_sort_onesweepk_u32".into(), (2, 1))); // 5000 / 3584 (256 threads x 14 keys)
        assert_eq!(e[3].0, "cupy_sort_onesweep_u32");
        let f = r.runs.borrow().last().unwrap().3.clone();
        assert_eq!((f[15], f[18]), (2, 1));
        // int32 keys only: nothing carried (the keys-only pass alone), unmapped by the sign bit.
        let r = Rec::default();
        hk::launch_sort(&r, DType::Int32, 0x100, None, None, 1, 5000, false, false).unwrap();
        assert_eq!(entries(&r)[2].0, "cupy_sort_onesweepk_u32");
        assert_eq!(entries(&r).len(), 1 + 1 + 4 + 1);
        let f = r.runs.borrow().last().unwrap().3.clone();
        assert_eq!((f[5], f[7], f[15], f[16]), (0, 0, 0, 0x8000_0000));
        // More than 65535 rows: onesweep sorts in groups of 65535 rows, each from its own
        // control words.
        let r = Rec::default();
        hk::launch_sort(
            &r,
            DType::Int32,
            0x100,
            None,
            None,
            65536,
            1025,
            false,
            false,
        )
        .unwrap();
        let e = entries(&r);
        assert_eq!(e.iter().filter(|x| x.0 == "cupy_sort_ctl").count(), 2);
        let second = e.iter().rposition(|x| x.0 == "cupy_sort_ctl").unwrap();
        assert_eq!(r.runs.borrow()[second].3[0], 0x100 + 65535 * 1025 * 4); // keys of row 65535

        // Rows of 2^30 keys or more: per-tile histograms, their scan, the scatter.
        let r = Rec::default();
        hk::launch_sort(
            &r,
            DType::UInt8,
            0x100,
            None,
            None,
            1,
            1 << 30,
            false,
            false,
        )
        .unwrap();
        let e = entries(&r);
        assert_eq!(e[0], ("cupy_sort_ctl".into(), (1, 1)));
        assert_eq!(e[1].0, "cupy_sort_tinit_uint8");
        assert!(e[2].0.starts_with("cupy_scan_totals_sum_uint32"));
        assert_eq!(e[5].0, "cupy_sort_scatterk_u32");
        assert!(!e.iter().any(|x| x.0.contains("onesweep")));
        // Rows of 2^32 elements or more are refused before any work.
        let r = Rec::default();
        assert!(
            hk::launch_sort(&r, DType::UInt8, 0, None, None, 1, 1 << 32, false, false).is_err()
        );
        assert!(r.runs.borrow().is_empty() && r.temps.borrow().is_empty());
    }

    #[test]
    fn select_plans() {
        use cupy_core::DType;
        // 5 ranks: two launches of at most 4; per launch init, 3 digits of (hist, pick), out.
        let r = Rec::default();
        let n = hk::SEL_TILE + 5;
        hk::launch_select(&r, DType::Float32, 0x100, 0x200, 2, n, &[0, 1, 2, 3, n - 1]).unwrap();
        let e = entries(&r);
        assert_eq!(e.len(), 2 * (1 + 3 * 2 + 1));
        assert_eq!(e[0], ("cupy_select_init".into(), (2, 1)));
        assert_eq!(e[1], ("cupy_select_hist_float32".into(), (2, 2)));
        assert_eq!(e[2], ("cupy_select_pick_u32".into(), (2, 1)));
        assert_eq!(e[7].0, "cupy_select_out_float32");
        let runs = r.runs.borrow();
        // SelectArgs words: shift 7, bits 8, m 9, mtot 10, j0 11, k0.. 12..
        assert_eq!((runs[1].3[7], runs[1].3[8]), (21, 11));
        assert_eq!((runs[8].3[9], runs[8].3[10], runs[8].3[11]), (1, 5, 4));
        assert_eq!(runs[8].3[12], (n - 1) as u64);
        // int8: one 8-bit digit
        let r = Rec::default();
        hk::launch_select(&r, DType::Int8, 0x100, 0x200, 1, 10, &[4]).unwrap();
        assert_eq!(entries(&r).len(), 1 + 2 + 1);
    }
}
