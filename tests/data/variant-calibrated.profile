{
  "format": "babylon-profile/1",
  "name": "calibrated from vcal",
  "notes": "calibrated on 5 photo(s) of vcal: totals exact 1.0, tiles found 1.0, levels 1.0, flowers 1.0",
  "flowers": {
    "white": "#EDE0CB",
    "pink": "#BD4C8D",
    "yellow": "#E28E3B",
    "blue": "#8264C3"
  },
  "board": {
    "width": 330.0,
    "depth": 270.0,
    "thickness": 4.0,
    "colour": "#C4BDB1",
    "frame_colour": "#6B4E2E",
    "frame_width": 4.0,
    "grid_origin": [
      15.0,
      15.0
    ],
    "pitch": 30.0,
    "cell_print": 28.0,
    "cell_colour": "#D2CCBD",
    "gap_colour": "#A09889",
    "hole_diameter": 11.0,
    "hole_colour": "#342F2E",
    "edge_colour": "#9C7F58",
    "emblem_centre": [
      292.0,
      33.0
    ],
    "emblem_diameter": 36.0,
    "emblem_colour": "#2F5E2F",
    "emblem_centre_diameter": 8.0,
    "emblem_centre_colour": "#E0A030",
    "recess": [
      262.0,
      60.0,
      322.0,
      120.0
    ],
    "recess_colour": "#A88A5E",
    "recess_line": 1.5,
    "pillar_slots": [
      [
        277.0,
        150.0
      ],
      [
        307.0,
        150.0
      ],
      [
        277.0,
        190.0
      ],
      [
        307.0,
        190.0
      ],
      [
        277.0,
        230.0
      ],
      [
        307.0,
        230.0
      ]
    ]
  },
  "tile": {
    "size": 58.0,
    "thickness": 2.5,
    "field_size": 28.0,
    "path_width": 2.0,
    "path_colour": "#C2BCA5",
    "garden_colour": "#507E56",
    "band_width": 3.0,
    "edge_colour": "#6E5A40",
    "underside": {
      "clay": "#8B5A2B",
      "granite": "#8A8A8A",
      "basalt": "#2E2E2E"
    },
    "plaque_diameter": 20.0,
    "plaque_colour": "#DFDDE0",
    "icon_box": 14.0,
    "icon_colour": "#3A3E53",
    "icon_style": "reference",
    "blank_flower_diameter": 6.0,
    "blank_flower_centre": "#F2C12E",
    "blank_flower_centre_on_yellow": "#C2571F",
    "placement_offset": 1.5,
    "placement_turn_deg": 3.0
  },
  "pillar": {
    "diameter": 10.0,
    "colour": "#CDBA94",
    "cap_colour": "#A8966F",
    "groove_colour": "#8F7E5C",
    "single_height": 20.0,
    "double_height": 42.5,
    "groove": [
      20.0,
      22.5
    ],
    "placement_offset": 0.6
  },
  "decoration": {
    "placement_offset": 2.0,
    "placement_turn_deg": 5.0,
    "statue_base": [
      12.0,
      3.0
    ],
    "statue_body": [
      8.0,
      5.0
    ],
    "statue_head": 6.0,
    "statue_height": 20.0,
    "statue_colour": "#6F5A6D",
    "fountain_basin": [
      48.0,
      20.0,
      7.0
    ],
    "fountain_rim_colour": "#9EB4BB",
    "fountain_water_colour": "#4BB1BC",
    "fountain_inset": 3.0,
    "fountain_spout": [
      4.0,
      10.0
    ],
    "bridge_deck": [
      80.0,
      16.0
    ],
    "bridge_end_thickness": 2.0,
    "bridge_rise": 12.0,
    "bridge_colour": "#A7504A",
    "bridge_rail_colour": "#8A4A2A",
    "bridge_rail_width": 2.0,
    "bridge_rail_lift": 1.5,
    "stairs_width": 16.0,
    "stairs_steps": 5,
    "stairs_colour": "#90989B",
    "belvedere_base": 14.0,
    "belvedere_dome": 14.0,
    "belvedere_height": 18.0,
    "belvedere_slab": 2.0,
    "belvedere_post": 2.2,
    "belvedere_post_inset": 1.6,
    "belvedere_roof": 1.0,
    "belvedere_post_colour": "#ABA7A7",
    "belvedere_dome_colour": "#3E5388"
  },
  "card": {
    "size": [
      63.0,
      88.0
    ],
    "thickness": 0.4,
    "back_colour": "#B22A2E",
    "back_pattern_colour": "#D9545A",
    "border_colour": "#F4F1EA",
    "border": 4.0
  },
  "level_height": 22.5
}
