"""The levels of places: the words a description says a place's level with, and the level each
administrative affix of a name stands for."""

from __future__ import annotations

# the level of a place, as a description says it ("上海是中国最大的城市", "Казань — город на Волге"), for the
# administrative affixes' kinds; the longest words are read first ("省会", a province's capital, is a city)
PLACE_LEVELS = {
    "city": ("直辖市", "直轄市", "地级市", "城市", "都市", "名城", "古都", "首都", "首府", "省会", "省會", "県庁所在地", "府庁所在地",
             "市", "도시", "수도", "광역시", "특별시", "город", "столица", "місто", "столиця", "city",
             "capital", "town", "ville", "ciudad", "cidade", "stadt", "città", "metropolis"),
    "province": ("省份", "省", "province", "провинция", "provincia"),
    "prefecture": ("府", "県", "prefecture"),
    "": ("地区", "地區", "地方", "市场", "市場"),  # an area a place lies in, a market: no level, read so
    "region": ("自治区", "自治區", "область", "край", "oblast", "krai", "region", "республика", "republic"),
    "county": ("县", "縣", "county", "уезд"),
    "village": ("村", "село", "деревня", "village", "hamlet"),
    "district": ("市辖区", "区", "區", "район", "district", "borough"),
}
# the level each administrative affix's kind ("place city") stands for
AFFIX_LEVELS = {"city": "city", "metropolis": "city", "special city": "city", "metro city": "city", "sar": "city",
                "town": "city", "province": "province", "special province": "province", "prefecture": "prefecture",
                "autonomous region": "region", "oblast": "region", "krai": "region", "republic": "region",
                "county": "county", "autonomous county": "county", "autonomous prefecture": "prefecture",
                "district": "district", "village": "village"}
