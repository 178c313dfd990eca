// A backend library that loads but registers nothing: the plugin loader must
// reject it with one line instead of running a suite with no new device.
extern "C" int tdc_empty_plugin_marker() { return 0; }
