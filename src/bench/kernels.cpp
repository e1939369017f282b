#include "bench/kernels.hpp"

namespace gpuvet::bench {

// Written by hand in the form nvcc emits; tests assemble it with ptxas for the oldest and the
// newest target of the toolkit on the build machine.
const char* const kKernelsPtx = R"PTX(.version 5.0
.target sm_30
.address_size 64

.visible .entry gpuvet_fill(
	.param .u64 gpuvet_fill_out,
	.param .u32 gpuvet_fill_n
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [gpuvet_fill_out];
	ld.param.u32 	%r1, [gpuvet_fill_n];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.u32 	%p1, %r5, %r1;
	@%p1 bra 	FILL_DONE;
	cvta.to.global.u64 	%rd2, %rd1;
	mad.lo.s32 	%r6, %r5, 40503, 7;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	st.global.u32 	[%rd4], %r6;
FILL_DONE:
	ret;
}

.visible .entry gpuvet_triad(
	.param .u64 gpuvet_triad_a,
	.param .u64 gpuvet_triad_b,
	.param .u64 gpuvet_triad_c,
	.param .f32 gpuvet_triad_s,
	.param .u32 gpuvet_triad_n
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<5>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<11>;

	ld.param.u64 	%rd1, [gpuvet_triad_a];
	ld.param.u64 	%rd2, [gpuvet_triad_b];
	ld.param.u64 	%rd3, [gpuvet_triad_c];
	ld.param.f32 	%f1, [gpuvet_triad_s];
	ld.param.u32 	%r1, [gpuvet_triad_n];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.u32 	%p1, %r5, %r1;
	@%p1 bra 	TRIAD_DONE;
	cvta.to.global.u64 	%rd4, %rd1;
	cvta.to.global.u64 	%rd5, %rd2;
	cvta.to.global.u64 	%rd6, %rd3;
	mul.wide.u32 	%rd7, %r5, 4;
	add.s64 	%rd8, %rd5, %rd7;
	add.s64 	%rd9, %rd6, %rd7;
	add.s64 	%rd10, %rd4, %rd7;
	ld.global.f32 	%f2, [%rd8];
	ld.global.f32 	%f3, [%rd9];
	fma.rn.f32 	%f4, %f1, %f3, %f2;
	st.global.f32 	[%rd10], %f4;
TRIAD_DONE:
	ret;
}
)PTX";

}  // namespace gpuvet::bench
