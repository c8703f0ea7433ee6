-- A month's driving-behaviour score (platform-spec §2 Settings "drivingGradeRule") on car_month_report and
-- driver_month_report: the days' scores of the month averaged by driving time (pipelines/grading.py
-- month_scores), its grade by the bands in effect for the row's enterprise (fleet/grade_bands.py) and the
-- deductions per key (counts and minutes summed, points averaged with the same weights). Written by the monthly
-- partition after its SQL rollup (orchestration/build.py build_month), which replaces the month: never duplicated.
-- depends: 0058_driving_grade

ALTER TABLE car_month_report ADD COLUMN grade_score real, ADD COLUMN grade text, ADD COLUMN grade_deductions jsonb;
ALTER TABLE driver_month_report ADD COLUMN grade_score real, ADD COLUMN grade text, ADD COLUMN grade_deductions jsonb;
