package nvml

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// smiLog mirrors the parts of `nvidia-smi -q -x` that Snapshot holds.
type smiLog struct {
	XMLName       xml.Name `xml:"nvidia_smi_log"`
	DriverVersion string   `xml:"driver_version"`
	CUDAVersion   string   `xml:"cuda_version"`
	GPUs          []struct {
		ID           string `xml:"id,attr"`
		Name         string `xml:"product_name"`
		Architecture string `xml:"product_architecture"`
		UUID         string `xml:"uuid"`
		MIG          struct {
			Current string `xml:"current_mig"`
			Pending string `xml:"pending_mig"`
		} `xml:"mig_mode"`
		MIGDevices struct {
			Devices []struct {
				UUID string `xml:"uuid"`
			} `xml:"mig_device"`
		} `xml:"mig_devices"`
		PCIBusID string `xml:"pci>pci_bus_id"`
		Clocks   struct {
			Inner []struct {
				XMLName xml.Name
				Value   string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"clocks_event_reasons"`
		Memory struct {
			Total string `xml:"total"`
			Used  string `xml:"used"`
		} `xml:"fb_memory_usage"`
		ComputeMode string `xml:"compute_mode"`
		ECCMode     string `xml:"ecc_mode>current_ecc"`
		ECCErrors   struct {
			Volatile  smiECCCounts `xml:"volatile"`
			Aggregate smiECCCounts `xml:"aggregate"`
		} `xml:"ecc_errors"`
		Retired struct {
			SBE     string `xml:"multiple_single_bit_retirement>retired_count"`
			DBE     string `xml:"double_bit_retirement>retired_count"`
			Pending string `xml:"pending_retirement"`
		} `xml:"retired_pages"`
		Remapped struct {
			Corr    string `xml:"remapped_row_corr"`
			Unc     string `xml:"remapped_row_unc"`
			Pending string `xml:"remapped_row_pending"`
			Failure string `xml:"remapped_row_failure"`
		} `xml:"remapped_rows"`
		Processes []struct {
			PID  string `xml:"pid"`
			Name string `xml:"process_name"`
			Used string `xml:"used_memory"`
		} `xml:"processes>process_info"`
	} `xml:"gpu"`
}

type smiECCCounts struct {
	Fields []struct {
		XMLName xml.Name
		Value   string `xml:",chardata"`
	} `xml:",any"`
}

// sums adds the *_correctable and *_uncorrectable* counters.
func (c smiECCCounts) sums() (corr, unc uint64) {
	for _, f := range c.Fields {
		n, err := strconv.ParseUint(strings.TrimSpace(f.Value), 10, 64)
		if err != nil {
			continue
		}
		switch name := f.XMLName.Local; {
		case strings.Contains(name, "uncorrectable"):
			unc += n
		case strings.Contains(name, "correctable"):
			corr += n
		}
	}
	return corr, unc
}

// maxSMIXML bounds what ParseSMIXML reads: a 16-GPU dump is about 0.5 MB.
const maxSMIXML = 16 << 20

// ParseSMIXML reads `nvidia-smi -q -x` output into the same Snapshot that
// Query returns, so a recorded machine can be replayed. The compute
// capability, which nvidia-smi does not print, comes from the GPU's name.
func ParseSMIXML(r io.Reader) (Snapshot, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSMIXML+1))
	if err != nil {
		return Snapshot{}, err
	}
	if len(data) > maxSMIXML {
		return Snapshot{}, errors.New("nvidia-smi XML larger than 16 MiB")
	}
	var lg smiLog
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	dec.Strict = false
	dec.Entity = xml.HTMLEntity
	if err := dec.Decode(&lg); err != nil {
		return Snapshot{}, fmt.Errorf("not nvidia-smi -q -x output: %w", err)
	}
	snap := Snapshot{Loaded: true, Library: "nvidia-smi -q -x", DriverVersion: strings.TrimSpace(lg.DriverVersion), GPUs: []GPU{}}
	snap.CUDAVersion = parseCUDAVersion(lg.CUDAVersion)
	for i, x := range lg.GPUs {
		g := GPU{
			Index: i, Name: strings.TrimSpace(x.Name), UUID: strings.TrimSpace(x.UUID),
			PCIBusID: strings.TrimSpace(x.PCIBusID), ComputeMode: strings.TrimSpace(x.ComputeMode),
		}
		if g.PCIBusID == "" {
			g.PCIBusID = x.ID
		}
		g.CCMajor, g.CCMinor, _ = CCForName(g.Name, x.Architecture)
		g.MemoryTotal = parseMiB(x.Memory.Total)
		g.MemoryUsed = parseMiB(x.Memory.Used)
		if m := strings.TrimSpace(x.MIG.Current); m == "Enabled" || m == "Disabled" {
			g.MIGMode, g.MIGPending = m, strings.TrimSpace(x.MIG.Pending)
		}
		for _, d := range x.MIGDevices.Devices {
			g.MIGDevices = append(g.MIGDevices, MIGDevice{UUID: strings.TrimSpace(d.UUID)})
		}
		for _, c := range x.Clocks.Inner {
			if strings.TrimSpace(c.Value) == "Active" {
				name := c.XMLName.Local
				name = strings.TrimPrefix(name, "clocks_event_reason_")
				name = strings.TrimPrefix(name, "clocks_throttle_reason_")
				g.ThrottleReasons = append(g.ThrottleReasons, name)
			}
		}
		if m := strings.TrimSpace(x.ECCMode); m == "Enabled" || m == "Disabled" {
			e := &ECC{Enabled: m == "Enabled"}
			e.VolatileCorrected, e.VolatileUncorrected = x.ECCErrors.Volatile.sums()
			e.AggregateCorrected, e.AggregateUncorrected = x.ECCErrors.Aggregate.sums()
			g.ECC = e
		}
		if sbe, err := strconv.Atoi(strings.TrimSpace(x.Retired.SBE)); err == nil {
			dbe, _ := strconv.Atoi(strings.TrimSpace(x.Retired.DBE))
			g.RetiredPages = &RetiredPages{SingleBit: sbe, DoubleBit: dbe, Pending: strings.TrimSpace(x.Retired.Pending) == "Yes"}
		}
		if corr, err := strconv.Atoi(strings.TrimSpace(x.Remapped.Corr)); err == nil {
			unc, _ := strconv.Atoi(strings.TrimSpace(x.Remapped.Unc))
			g.RemappedRows = &RemappedRows{Correctable: corr, Uncorrectable: unc,
				Pending: strings.TrimSpace(x.Remapped.Pending) == "Yes", Failure: strings.TrimSpace(x.Remapped.Failure) == "Yes"}
		}
		for _, p := range x.Processes {
			pid, err := strconv.Atoi(strings.TrimSpace(p.PID))
			if err != nil {
				continue
			}
			g.Processes = append(g.Processes, Process{PID: pid, Name: strings.TrimSpace(p.Name), UsedMemory: parseMiB(p.Used)})
		}
		snap.GPUs = append(snap.GPUs, g)
	}
	return snap, nil
}

// parseCUDAVersion turns "13.0" into 13000.
func parseCUDAVersion(s string) int {
	s = strings.TrimSpace(s)
	ma, mi, ok := strings.Cut(s, ".")
	a, err := strconv.Atoi(ma)
	if err != nil {
		return 0
	}
	b := 0
	if ok {
		b, _ = strconv.Atoi(mi)
	}
	return a*1000 + b*10
}

// parseMiB turns "81559 MiB" into bytes (0 for N/A).
func parseMiB(s string) uint64 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	n, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return n << 20
}
