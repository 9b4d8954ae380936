/* complex_value.cuh — the complex value type of the device SpMV kernels
 * (complex128 and complex64 rows): two parts laid out as the host's (re,
 * im) pairs, with what the kernel templates do to a value (sums, products,
 * warp shuffles, read-only loads, atomic adds), so a kernel written for T
 * runs complex by being instantiated for it. */
#ifndef SPB_COMPLEX_VALUE_CUH
#define SPB_COMPLEX_VALUE_CUH

template <typename R> struct alignas(2 * sizeof(R)) gpu_complex {
    R re, im;
    gpu_complex() = default;
    __host__ __device__ constexpr gpu_complex(R real, R imag = R(0)) : re(real), im(imag) {}
};
typedef gpu_complex<double> gpu_c128;
typedef gpu_complex<float> gpu_c64;

template <typename R>
static __host__ __device__ __forceinline__ gpu_complex<R> operator+(gpu_complex<R> a,
                                                                    gpu_complex<R> b)
{
    return gpu_complex<R>(a.re + b.re, a.im + b.im);
}
template <typename R>
static __host__ __device__ __forceinline__ gpu_complex<R> &operator+=(gpu_complex<R> &a,
                                                                      gpu_complex<R> b)
{
    a.re += b.re;
    a.im += b.im;
    return a;
}
template <typename R>
static __host__ __device__ __forceinline__ gpu_complex<R> operator*(gpu_complex<R> a,
                                                                    gpu_complex<R> b)
{
    return gpu_complex<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

/* The warp shuffles, part by part. */
template <typename R>
static __device__ __forceinline__ gpu_complex<R> __shfl_down_sync(unsigned mask, gpu_complex<R> v,
                                                                  int delta, int width = 32)
{
    return gpu_complex<R>(__shfl_down_sync(mask, v.re, delta, width),
                          __shfl_down_sync(mask, v.im, delta, width));
}
template <typename R>
static __device__ __forceinline__ gpu_complex<R> __shfl_sync(unsigned mask, gpu_complex<R> v,
                                                             int lane)
{
    return gpu_complex<R>(__shfl_sync(mask, v.re, lane), __shfl_sync(mask, v.im, lane));
}
template <typename R>
static __device__ __forceinline__ gpu_complex<R> __shfl_up_sync(unsigned mask, gpu_complex<R> v,
                                                                int delta)
{
    return gpu_complex<R>(__shfl_up_sync(mask, v.re, delta), __shfl_up_sync(mask, v.im, delta));
}
template <typename R>
static __device__ __forceinline__ gpu_complex<R> __ldg(const gpu_complex<R> *p)
{
    return gpu_complex<R>(__ldg(&p->re), __ldg(&p->im));
}
/* Read once, cached evict-first (ld.global.cs), part by part. */
template <typename R>
static __device__ __forceinline__ gpu_complex<R> __ldcs(const gpu_complex<R> *p)
{
    return gpu_complex<R>(__ldcs(&p->re), __ldcs(&p->im));
}
/* *p read past the caches (another block's published value): a real one
 * through a volatile load, a complex one part by part. */
template <typename T> static __device__ __forceinline__ T volatile_load(const T *p)
{
    return *(const volatile T *)p;
}
template <typename R>
static __device__ __forceinline__ gpu_complex<R> volatile_load(const gpu_complex<R> *p)
{
    return gpu_complex<R>(*(const volatile R *)&p->re, *(const volatile R *)&p->im);
}

/* Each part added atomically (a sum's parts are independent). */
template <typename R>
static __device__ __forceinline__ void atomicAdd(gpu_complex<R> *p, gpu_complex<R> v)
{
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
}

#endif
