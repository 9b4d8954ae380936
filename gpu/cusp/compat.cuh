/* compat.cuh — CUSP's headers, as adapter.cu includes them. CUSP's main line is written against
 * Thrust 2 (CCCL 2.x); Thrust 3 (CUDA 13) dropped one alias it uses,
 * thrust::detail::minimum_system_t, which is defined here again in Thrust's
 * own terms. Its released tags (v0.5.1 to v0.6.1) need more than that:
 * docs/kernels.md, "CUSP". */
#ifndef SPB_CUSP_COMPAT_CUH
#define SPB_CUSP_COMPAT_CUH

#include <thrust/version.h>
#if THRUST_VERSION >= 300000
#include <thrust/iterator/detail/minimum_system.h>
THRUST_NAMESPACE_BEGIN
namespace detail
{
template <typename... Systems> using minimum_system_t = typename minimum_system<Systems...>::type;
}
THRUST_NAMESPACE_END
#endif

#include <cusp/convert.h>
#include <cusp/coo_matrix.h>
#include <cusp/csr_matrix.h>
#include <cusp/ell_matrix.h>
#include <cusp/exception.h>
#include <cusp/format_utils.h>
#include <cusp/hyb_matrix.h>
#include <cusp/multiply.h>
#include <cusp/version.h>

#endif
