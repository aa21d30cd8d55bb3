"""What answers a timeline's range requests, for either engine: a trace's call forest as
arrays, sorted into lanes, with levels of detail for wide ranges; the pictures (exact
boxes, rasters of what is smaller than a pixel, instants and message arrows) and the
overview strip, packed for the front end. The timeline widget (:mod:`glade.views.timeline`)
only transports what a source (:mod:`glade.trace.timeline.source`) answers."""
