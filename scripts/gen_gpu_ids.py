#!/usr/bin/env python3
"""Generates data/gpu_ids.csv and data/gpu_chips.csv, the GPU identity tables.

Inputs (downloaded by hand; nothing here touches the network, so CI never runs it):
  --driver-names  src/nvidia/generated/g_nv_name_released.h of NVIDIA's open GPU kernel modules
                  (https://github.com/NVIDIA/open-gpu-kernel-modules): the driver's own table of
                  PCI device id -> product name, i.e. exactly what nvidia-smi, NVML and
                  cudaGetDeviceProperties print.
  --pci-ids       pci.ids of the PCI ID Repository (https://pci-ids.ucw.cz, mirrored at
                  https://github.com/pciutils/pciids; Debian ships it as /usr/share/misc/pci.ids):
                  device id -> chip ("GA106") and the names lspci prints.
  --gpus          data/gpus.csv: the names and compute capabilities of NVIDIA's CUDA GPUs pages.

Compute capabilities are never invented. A device gets one in two ways, recorded in cc_from:
  chip  every product of its chip that NVIDIA's CUDA GPUs page lists has that one capability
        (the evidence is data/gpu_chips.csv, one row per chip, with the page's names);
  name  its name is a name of NVIDIA's page (after dropping form factor and memory size) and
        its chip has no contradicting evidence.
Otherwise the capability is left empty (unknown).

Usage:
  scripts/gen_gpu_ids.py --driver-names g_nv_name_released.h --pci-ids pci.ids \
      --driver-source "open-gpu-kernel-modules 595.45.04" --pci-ids-source "pci.ids 2026.08.22"
"""
import argparse
import csv
import io
import re
import sys

DRIVER_URL = ("https://github.com/NVIDIA/open-gpu-kernel-modules/blob/main/"
              "src/nvidia/generated/g_nv_name_released.h")
PCI_IDS_URL = "https://pci-ids.ucw.cz/read/PC/10de"
PAGE_URL = "https://developer.nvidia.com/cuda-gpus (data/gpus.csv)"

BRANDS = {"nvidia", "geforce", "tesla", "quadro"}
# Words that name a board's form factor or memory, not a different GPU: the page names the GPU
# ("NVIDIA A100"), the driver the board ("NVIDIA A100-SXM4-80GB").
BOARD_WORDS = {"sxm", "sxm2", "sxm3", "sxm4", "sxm5", "sxm6", "pcie", "nvl", "hbm2", "hbm2e",
               "hbm3", "hbm3e", "lc", "active", "dgxs", "fhhl", "mxm", "laptop", "gpu", "mobile",
               "with", "max", "q", "design", "lite", "hash", "rate", "lhr"}


def words(name):
    name = re.sub(r"\((tm|r)\)", " ", name.lower())
    return [w for w in re.split(r"[^a-z0-9]+", name) if w]


def exact_key(name):
    return " ".join(w for w in words(name) if w not in BRANDS)


def loose_key(name):
    return " ".join(w for w in words(name)
                    if w not in BRANDS and w not in BOARD_WORDS and not re.fullmatch(r"\d+gb?", w))


def memory_of(name):
    m = re.search(r"(\d+)\s*GB?\b", name)
    return f"{m.group(1)} GB" if m else ""


def read_driver_names(path):
    rows = []
    pattern = re.compile(r'\{\s*0x([0-9A-Fa-f]{4}),\s*0x([0-9A-Fa-f]{4}),\s*0x([0-9A-Fa-f]{4}),'
                         r'\s*"([^"]+)"\s*\}')
    previous = -1
    for line in open(path, encoding="utf-8"):
        m = pattern.search(line)
        if not m:
            continue
        device, name = m.group(1).lower(), m.group(4)
        # The physical GPUs come first, sorted by device id; the vGPU profiles that follow
        # ("GRID A100X-1-5C", and gaming profiles named after GeForce cards) start the ids over.
        if int(device, 16) < previous:
            break
        previous = int(device, 16)
        if name in ("NVIDIA GeForce GPU", "NVIDIA Graphics Device"):
            continue  # placeholder names name no product
        rows.append((device, name))
    return rows


def expand_alternatives(text):
    """pci.ids writes "GeForce 610M/710M / GT 620M" for several products of one id."""
    parts = [p.strip() for p in text.split("/") if p.strip()]
    if not parts:
        return []
    first = parts[0].split()
    brand = first[0] if first[0] in ("GeForce", "Quadro", "Tesla", "NVS") else ""
    names = [parts[0]]
    for p in parts[1:]:
        if len(p.split()) == 1 and len(first) > 1:
            names.append(" ".join(first[:-1] + [p]))
        elif brand and not p.startswith(brand):
            names.append(f"{brand} {p}")
        else:
            names.append(p)
    return names


def read_pci_ids(path):
    """device id -> (chip, [names]) for vendor 10de."""
    devices = {}
    in_nvidia = False
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("10de "):
            in_nvidia = True
            continue
        if in_nvidia and line and not line.startswith("\t") and not line.startswith("#"):
            break
        if not in_nvidia or not line.startswith("\t") or line.startswith("\t\t"):
            continue
        m = re.match(r"\t([0-9a-f]{4})\s+(.*)$", line.rstrip("\n"))
        if not m:
            continue
        device, text = m.group(1), m.group(2).strip()
        b = re.match(r"^(\S+)\s*\[(.*)\]\s*$", text)
        if b:
            chip, names = b.group(1), expand_alternatives(b.group(2))
        else:
            chip, names = text.split()[0], []
        if not re.fullmatch(r"(GF|GK|GM|GP|GV|TU|GA|AD|GH|GB)\d+[A-Z]*", chip):
            continue  # audio functions, bridges, NVSwitches: not GPUs
        devices[device] = (chip, names)
    return devices


def read_page(path):
    lines = [l for l in open(path, encoding="utf-8") if not l.startswith("#")]
    return list(csv.DictReader(io.StringIO("".join(lines))))


def page_index(page):
    by_exact, by_loose = {}, {}
    for row in page:
        by_exact.setdefault(exact_key(row["name"]), []).append(row)
        by_loose.setdefault(loose_key(row["name"]), []).append(row)
    return by_exact, by_loose


def page_rows_for(name, index):
    by_exact, by_loose = index
    return by_exact.get(exact_key(name)) or by_loose.get(loose_key(name)) or []


def base_chip(chip):
    # pci.ids marks the professional and mobile parts of a die (GA102GL, TU117M, GP108BM): the
    # same die, so the same compute capability.
    return re.sub(r"(GL|M|BM|GLM|B|BGL)$", "", chip) if re.match(r"^[A-Z]+\d+", chip) else chip


def family(chip):
    return re.match(r"[A-Z]*", chip).group(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver-names", required=True)
    ap.add_argument("--pci-ids", required=True)
    ap.add_argument("--gpus", default="data/gpus.csv")
    ap.add_argument("--driver-source", required=True, help="which release of the driver table")
    ap.add_argument("--pci-ids-source", required=True, help="which version of pci.ids")
    ap.add_argument("--families", default="scripts/gpu_family_cc.csv")
    ap.add_argument("--out-ids", default="data/gpu_ids.csv")
    ap.add_argument("--out-chips", default="data/gpu_chips.csv")
    args = ap.parse_args()

    page = read_page(args.gpus)
    index = page_index(page)
    driver = read_driver_names(args.driver_names)
    pci = read_pci_ids(args.pci_ids)

    # (device, name, where the name comes from)
    entries = []
    seen = set()
    for device, name in driver:
        if (device, name) not in seen:
            seen.add((device, name))
            entries.append((device, name, "driver"))
    for device, (chip, names) in sorted(pci.items()):
        for name in names:
            if (device, name) not in seen:
                seen.add((device, name))
                entries.append((device, name, "pci.ids"))

    # Evidence: the page's capability for each chip, through the names of its devices.
    # A page name carried by chips of different families ("GeForce GT 730": Kepler GK208 and
    # Fermi GF108) says nothing about any one of them.
    chips_of_page_name = {}
    for device, name, _ in entries:
        if device in pci:
            for row in page_rows_for(name, index):
                chips_of_page_name.setdefault(row["name"], set()).add(base_chip(pci[device][0]))

    def telling(page_name):
        return len({family(c) for c in chips_of_page_name.get(page_name, {""})}) == 1

    evidence = {}
    for device, name, _ in entries:
        if device not in pci:
            continue
        for row in page_rows_for(name, index):
            if telling(row["name"]):
                evidence.setdefault(base_chip(pci[device][0]), {}).setdefault(
                    (row["compute_capability"], row["architecture"]), set()).add(row["name"])
    # A rule needs the page to agree on two products at least: one name may be a page error
    # or a rebadge on another chip.
    chips = {}
    for chip, by_cc in sorted(evidence.items()):
        if len(by_cc) == 1 and len(next(iter(by_cc.values()))) >= 2:
            (cc, arch), names = next(iter(by_cc.items()))
            chips[chip] = (cc, arch, sorted(names), "")
        elif len(by_cc) > 1:
            print(f"chip {chip}: the page's names disagree, no rule: {by_cc}", file=sys.stderr)

    # Families whose listed products the page puts at one capability, for chips it leaves open.
    families = [r for r in csv.DictReader(l for l in open(args.families, encoding="utf-8")
                                          if not l.startswith("#"))]
    page_cc = {}
    for row in page:
        page_cc.setdefault(row["name"], set()).add(row["compute_capability"])
    for f in families:
        for product in f["evidence"].split("; "):
            if page_cc.get(product) != {f["compute_capability"]}:
                sys.exit(f"family {f['chip_pattern']}: {product} is not at "
                         f"{f['compute_capability']} in {args.gpus}")
    for chip in sorted({base_chip(c) for c, _ in pci.values()}):
        if chip in chips:
            continue
        for f in families:
            if re.fullmatch(f["chip_pattern"], chip):
                chips[chip] = (f["compute_capability"], f["architecture"], [],
                               f"{f['source']} (its family: {f['evidence']})")
    with open(args.out_chips, "w", encoding="utf-8", newline="") as f:
        f.write("# Generated by scripts/gen_gpu_ids.py; do not edit. A chip's compute capability is\n"
                "# the one NVIDIA's CUDA GPUs page gives every product of that chip (evidence), or\n# the one the page gives every listed product of its family (scripts/gpu_family_cc.csv).\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["chip", "compute_capability", "architecture", "evidence", "source"])
        for chip, (cc, arch, names, guide) in sorted(chips.items()):
            if guide:
                w.writerow([chip, cc, arch, "family rule", f"{guide}; chips: {args.pci_ids_source}"])
            else:
                w.writerow([chip, cc, arch, "; ".join(names),
                            f"{PAGE_URL}; chips: {args.pci_ids_source} ({PCI_IDS_URL})"])

    with open(args.out_ids, "w", encoding="utf-8", newline="") as f:
        f.write("# Generated by scripts/gen_gpu_ids.py; do not edit. One row per PCI device id and\n"
                "# name: the driver's names (what nvidia-smi prints) and pci.ids' (what lspci prints).\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["device_id", "name", "name_from", "chip", "architecture",
                    "compute_capability", "cc_from", "memory", "source"])
        for device, name, origin in sorted(entries, key=lambda e: (e[0], e[2], e[1])):
            chip = pci.get(device, ("", []))[0]
            cc, arch, cc_from = "", "", ""
            rule = chips.get(base_chip(chip))
            page_rows = page_rows_for(name, index)
            page_ccs = {r["compute_capability"] for r in page_rows}
            if rule:
                cc, arch, cc_from = rule[0], rule[1], "chip"
            elif len(page_ccs) == 1 and telling(page_rows[0]["name"]):
                cc, arch, cc_from = page_rows[0]["compute_capability"], page_rows[0][
                    "architecture"], "name"
            name_source = (f"{args.driver_source} ({DRIVER_URL})" if origin == "driver" else
                           f"{args.pci_ids_source} ({PCI_IDS_URL})")
            source = name_source
            if chip and origin == "driver":
                source += f"; chip: {args.pci_ids_source}"
            if cc_from == "name":
                source += f"; compute capability: {PAGE_URL}"
            elif cc_from == "chip":
                source += "; compute capability: data/gpu_chips.csv"
            w.writerow([device, name, origin, chip, arch, cc, cc_from, memory_of(name), source])
    print(f"{len(entries)} names, {len(chips)} chip rules", file=sys.stderr)


if __name__ == "__main__":
    main()
