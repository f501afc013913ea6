//! [`SeedSequence`]: turns a user seed (and a spawn path) into a Philox key, and spawns
//! children with independent keys, in the spirit of NumPy's `SeedSequence` (O'Neill's
//! seed_seq hashing). The mixing function is SplitMix64's finalizer (Steele, Lea and Flood,
//! "Fast splittable pseudorandom number generators", OOPSLA 2014), applied over the seed and
//! every word of the spawn key; the keys differ from NumPy's.

/// A seed and the path of spawns that led to it (`numpy.random.SeedSequence`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedSequence {
    /// The user's seed (`entropy`).
    pub entropy: u64,
    /// The spawn path: child `i` of child `j` of the root is `[j, i]`.
    pub spawn_key: Vec<u64>,
    /// How many children have been spawned so far.
    pub n_children_spawned: u64,
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SeedSequence {
    /// The root sequence of `seed`.
    pub fn new(seed: u64) -> SeedSequence {
        SeedSequence {
            entropy: seed,
            spawn_key: vec![],
            n_children_spawned: 0,
        }
    }
    /// The 64-bit key this sequence hashes to, as Philox's two 32-bit key words.
    pub fn key(&self) -> [u32; 2] {
        let golden = 0x9E37_79B9_7F4A_7C15u64;
        let mut h = mix64(self.entropy.wrapping_add(golden));
        for (depth, &k) in self.spawn_key.iter().enumerate() {
            h = mix64(h ^ mix64(k.wrapping_add(golden.wrapping_mul(depth as u64 + 2))));
        }
        [h as u32, (h >> 32) as u32]
    }
    /// `SeedSequence.spawn(n)`: `n` children, numbered after those spawned before.
    pub fn spawn(&mut self, n: usize) -> Vec<SeedSequence> {
        let first = self.n_children_spawned;
        self.n_children_spawned += n as u64;
        (first..first + n as u64)
            .map(|i| {
                let mut spawn_key = self.spawn_key.clone();
                spawn_key.push(i);
                SeedSequence {
                    entropy: self.entropy,
                    spawn_key,
                    n_children_spawned: 0,
                }
            })
            .collect()
    }
}

routine!(
    "cupy.random.SeedSequence",
    Random,
    notes: "spawn(); SplitMix64 mixing (keys differ from NumPy's)"
);
