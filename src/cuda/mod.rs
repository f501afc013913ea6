//! `cupy.cuda`'s streams and events, for every backend: [`Stream`] (`cupy.cuda.Stream`), the
//! thread's current stream per device ([`with_stream`], [`get_current_stream`]), [`Event`] and
//! [`get_elapsed_time`].
//!
//! On cuda and hip a [`Stream`] is a device stream and an [`Event`] a device event; every op
//! (kernel launches, copies, cuBLAS/cuFFT/cuSOLVER and their ROCm counterparts) is queued on
//! the current stream. wgpu has one queue: every stream is that queue, recording an event
//! submits the recorded work with a completion marker, and synchronizing waits for it. The cpu
//! runs work when it is queued: streams do nothing there and events stamp the host clock.
//! See `docs/streams.md`.
//!
//! [`Graph`] captures the ops queued on a stream ([`Stream::begin_capture`],
//! [`Graph::capture`]) and replays them ([`Graph::launch`]): CUDA/HIP graphs, recorded backend
//! calls on wgpu and the cpu (`docs/streams.md`, "Graphs").
//!
//! Arrays remember the streams that used them: an array written on one stream and then used
//! on another is ordered by an event wait on the device, so results never depend on timing
//! (`docs/streams.md`).

mod event;
pub(crate) mod graph;
#[cfg(test)]
mod graph_tests;
pub(crate) mod order;
pub(crate) mod record;
mod stream;
#[cfg(test)]
mod tests;

pub use crate::memory::{
    get_allocator, set_allocator, using_allocator, Allocator, PinnedMemoryPool,
};
pub use cupy_core::backend::CaptureMode;
pub use event::{get_elapsed_time, Event};
pub use graph::Graph;
pub use stream::{get_current_stream, get_current_stream_on, with_stream, Stream};

routine!(
    Stream as "cupy.cuda.Stream",
    Devices,
    notes: "new new_non_blocking null synchronize query wait_event record; with_stream, get_current_stream; one queue on wgpu, no-ops on cpu"
);
routine!(
    Graph as "cupy.cuda.graph.Graph",
    Devices,
    notes: "Stream.begin_capture end_capture is_capturing, Graph::capture, launch, upload; device graphs on cuda and hip, recorded backend calls on wgpu and cpu"
);
routine!(
    Event as "cupy.cuda.Event",
    Devices,
    notes: "record synchronize query; get_elapsed_time (ms); host-clock stamps on wgpu and cpu"
);
