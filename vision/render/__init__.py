"""The synthetic renderer (digital twin): photo conditions, 3-D rasterizer and post-processing."""
