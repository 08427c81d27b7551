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
# the share of its per-direction line rate (NVIDIA's datasheets, scoring.reference.gpus) an
# nvbandwidth host<->device copy reaches in the slower direction, measured per superchip: the
# two do not reach the same share of their line.
# GH200: device to host is the slower direction: 295.15 GB/s (all_to_host_memcpy_ce of the
# one-GPU GH200 480GB run in tests/scoring/evidence/samples/nvbandwidth, superbench) and about
# 300 ("H2D is approximately 15% faster than D2H" at 346 GB/s H2D, NVIDIA/nvbandwidth#23), of
# 450 GB/s per direction: 0.66, rounded down. Its host to device copies reach 0.77.
NVLINK_C2C_EFFICIENCY = 0.65
# GB200 (225 GB/s per direction per GPU): Azure's published ND GB200 v6 results (Azure
# AI-benchmarking-guide, Azure_Results/ND_GB200_v6_results.md as kept in its public forks,
# driver 570.133.20: nvbandwidth host to device 201, device to host 193 GB/s) give 193 / 225 =
# 0.858 in the slower direction; OCI's GB200 guide, about 200 GB/s host to device per GPU
# measured alone (0.89). Rounded down to 0.85. At GH200's 0.65, a GB200 whose copies had lost a
# quarter of their rate still read above 1.0 (measured healthy).
NVLINK_C2C_GB200_EFFICIENCY = 0.85
