-- Followed cars (platform-spec §7 POST /api/common/query/carUserView.json): each user's own list of the
-- vehicles they keep an eye on, shown as a tab of the vehicle tree. A row belongs to its user; the car's
-- enterprise scopes it like every car row, so a vehicle that leaves the caller's scope leaves the list too.
-- depends: 0051_exchange_video_requests

CREATE TABLE car_user (
    user_id    bigint NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
    car_id     bigint NOT NULL REFERENCES car(id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, car_id)
);
CREATE INDEX car_user_car ON car_user (car_id);

-- car_view's columns for the followed cars, with whose follow it is and since when.
CREATE VIEW car_user_view AS
SELECT v.*, f.user_id, f.created_at AS followed_at
FROM car_user f
JOIN car_view v ON v.car_id = f.car_id;
