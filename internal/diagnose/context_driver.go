package diagnose

// driverWordTriggers let lines that name the driver in words ("host driver
// 470", "Nvidia Driver:450.51.06", "nvidia-driver-525", TensorFlow's
// "kernel reported version is: 418.87.0", "驱动版本：510.60.02") reach the
// parser, where probe.FromText reads them (each at least minTrigger bytes).
var driverWordTriggers = []string{"driver 3", "driver 4", "driver 5", "driver 6", "Driver 3", "Driver 4", "Driver 5", "Driver 6",
	"driver:", "Driver:", "DRIVER:", "driver is", "Driver is", "driver-3", "driver-4", "driver-5", "driver-6", "driver=",
	"reported version is", "驱动"}
