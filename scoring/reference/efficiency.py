"""The shares of a link's line rate that NCCL's collectives and host copies reach, and PCIe's
line rates: the factors every expectation of scoring.reference multiplies by."""

from __future__ import annotations

# --- efficiency factors (fractions of the line rate that NCCL all-reduce reaches) -------------

# NVIDIA/nccl-tests#212 (sjeaugey): 370 of 450 GB/s effective on NVLink4 -> 0.82; the
# 8 x A100-SXM4-40GB sample (oci-a100-1node) reaches 232.2 of 300 -> 0.77. Rounded to 0.8.
NVLINK_RING_EFFICIENCY = 0.8
# PCIe: 128b/130b encoding and TLP headers leave ~80 % of the line rate for payload, the same
# protocol share NCCL gets on NVLink.
PCIE_EFFICIENCY = 0.8
# GeForce cards have no PCIe peer-to-peer (`nvidia-smi topo -p2p p` prints NS on the
# 2 x RTX 2080 Ti sample), so NCCL stages every transfer through host memory (SHM transport):
# each byte is copied twice. The 4 x RTX 5090 sample (nccl-tests#287) reaches 27.28 GB/s,
# 1.08 x PCIe Gen5's 63 x 0.8 x 0.5; the 2 x RTX 2080 Ti sample, in a rented container, 4.0 GB/s,
# 0.63 x Gen3's 15.75 x 0.8 x 0.5 (neither verified nor refuted): the factor is the copy count,
# not fitted to the slower sample.
NO_P2P_FACTOR = 0.5
# A node whose GPUs span two CPU sockets (SYS between GPUs in nvidia-smi topo -m: a dual-socket
# PCIe server, 8 x L40S) without NVLink: the PCIe ring crosses the sockets twice, and those hops
# are not PCIe peer-to-peer. NCCL uses P2P only up to PXB on Intel CPUs (ncclTopoCheckP2p in
# NVIDIA/nccl src/graph/paths.cc), so it stages them through host memory (SHM: "SHM is
# primarily used when GPUs are on different CPUs"; within a PCIe switch "12GB/s instead of 9
# or 6" over SHM, sjeaugey, NVIDIA/nccl#406); on AMD, P2P across sockets is slower still
# (NVIDIA/nccl-tests#74, A40 on EPYC). The ring then runs at the staged rate, NO_P2P_FACTOR.
SPANS_SOCKETS_FACTOR = NO_P2P_FACTOR
# RDMA (InfiniBand / RoCE): 192 GB/s busbw of 200 GB/s NICs on DGX-A100 (NVIDIA/nccl#812) -> 0.96.
NET_RDMA_EFFICIENCY = 0.95
# Plain Ethernet without RDMA: NCCL's socket transport copies through the kernel; rubric
# estimate (no single authoritative figure), deliberately well below RDMA.
NET_TCP_EFFICIENCY = 0.6

# PCIe x16 one-direction line rate in GB/s (PCI-SIG: 8, 16, 32, 64 GT/s per lane, 128b/130b).
PCIE_X16_GBYTE_S = {3: 15.75, 4: 31.5, 5: 63.0, 6: 121.0}
# NVLink-C2C (the Grace CPU's coherent link to its GPU in GH200 and GB200, in place of PCIe):
# the share of its per-direction line rate an nvbandwidth host<->device copy reaches in the
# slower direction. Device to host is the slower one on GH200: 295.15 GB/s (all_to_host_memcpy_ce
# of the one-GPU GH200 480GB run in tests/scoring/evidence/samples/nvbandwidth, superbench) and
# about 300 ("H2D is approximately 15% faster than D2H" at 346 GB/s H2D, NVIDIA/nvbandwidth#23),
# of 450 GB/s per direction: 0.66, rounded down. The host to device copies of both reach
# 0.77-0.92. A GB200's GPU reaches more of its share (about 0.87: 802.86 GB/s summed over the
# four GPUs of the OCI GB200 sample, each measured alone, of 4 x 225), so it reads above 1.0.
NVLINK_C2C_EFFICIENCY = 0.65
